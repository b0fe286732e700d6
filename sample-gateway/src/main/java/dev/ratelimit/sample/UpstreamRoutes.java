package dev.ratelimit.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.Bean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;

import static org.springframework.web.reactive.function.server.RouterFunctions.route;

/**
 * The upstream services the gateway protects, on the sample's own port: a small JSON
 * document under {@code /upstream/**}; a login that refuses a wrong password with
 * {@code 401}; a slow export; and a fake language model that reports the tokens each
 * answer used, in its JSON body or, streamed, in its last event, as OpenAI-style APIs do.
 */
@Configuration(proxyBeanMethods = false)
class UpstreamRoutes {

	/**
	 * The password the sample's login accepts.
	 */
	static final String PASSWORD = "letmein";

	/**
	 * How long an export takes.
	 */
	static final Duration EXPORT_TIME = Duration.ofSeconds(2);

	private static final List<String> ANSWER = Arrays
		.asList("Rate limits protect a service by refusing what it cannot serve in time".split(" "));

	@Bean
	RouterFunction<ServerResponse> upstream() {
		return route().POST("/upstream/login", UpstreamRoutes::login)
			.GET("/upstream/exports/**",
					(request) -> Mono.delay(EXPORT_TIME)
						.then(ServerResponse.ok().bodyValue(Map.of("export", request.path(), "rows", 1000))))
			.GET("/upstream/chat/**", UpstreamRoutes::chat)
			.GET("/upstream/**", (request) -> ServerResponse.ok()
				.bodyValue(Map.of("service", "sample-upstream", "path", request.path(), "at", Instant.now().toString())))
			.build();
	}

	private static Mono<ServerResponse> login(ServerRequest request) {
		if (PASSWORD.equals(request.headers().firstHeader("X-Password"))) {
			return ServerResponse.ok().bodyValue(Map.of("login", "ok"));
		}
		return ServerResponse.status(HttpStatus.UNAUTHORIZED).bodyValue(Map.of("login", "wrong password"));
	}

	/**
	 * An answer to {@code prompt}: one token per word, of the prompt and of the answer.
	 * {@code stream=true} sends the answer word by word as server-sent events, the last
	 * with the usage, then {@code [DONE]}.
	 */
	private static Mono<ServerResponse> chat(ServerRequest request) {
		String prompt = request.queryParam("prompt").orElse("hello");
		long promptTokens = prompt.isBlank() ? 0 : prompt.trim().split("\\s+").length;
		long completionTokens = ANSWER.size();
		String usage = "{\"prompt_tokens\":" + promptTokens + ",\"completion_tokens\":" + completionTokens
				+ ",\"total_tokens\":" + (promptTokens + completionTokens) + "}";
		if (!request.queryParam("stream").map(Boolean::parseBoolean).orElse(false)) {
			String body = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"" + String.join(" ", ANSWER)
					+ "\"}}],\"usage\":" + usage + "}";
			return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(body);
		}
		Flux<ServerSentEvent<String>> events = Flux.fromIterable(ANSWER)
			.map((word) -> "{\"choices\":[{\"delta\":{\"content\":\"" + word + " \"}}],\"usage\":null}")
			.concatWithValues("{\"choices\":[],\"usage\":" + usage + "}", "[DONE]")
			.map((data) -> ServerSentEvent.builder(data).build());
		return ServerResponse.ok()
			.contentType(MediaType.TEXT_EVENT_STREAM)
			.body(events, new ParameterizedTypeReference<ServerSentEvent<String>>() {
			});
	}

}
