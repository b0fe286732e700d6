package dev.ratelimit.autoconfigure;

import java.util.List;

import dev.ratelimit.autoconfigure.RateLimitProperties.WebRoute;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code ratelimit.web.routes} lists at least one route.
 */
class OnWebRoutesCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		List<WebRoute> routes = Binder.get(context.getEnvironment())
			.bind("ratelimit.web.routes", Bindable.listOf(WebRoute.class))
			.orElse(List.of());
		return routes.isEmpty() ? ConditionOutcome.noMatch("ratelimit.web.routes is empty")
				: ConditionOutcome.match("ratelimit.web.routes lists " + routes.size() + " route(s)");
	}

}
