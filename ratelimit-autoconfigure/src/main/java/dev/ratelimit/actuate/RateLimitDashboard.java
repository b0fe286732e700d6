package dev.ratelimit.actuate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import reactor.core.publisher.Mono;

import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * A read-only page over the {@code ratelimits} endpoint: per policy, allowed and
 * rejected (and, where a limit shapes, delayed) per second over the last minutes and the
 * hottest buckets with how close each is to its limit; and the requests this node holds
 * for shaping. One self-contained document (a gateway may have no internet), built
 * once; the browser polls the endpoint, so the page itself holds no data.
 */
public final class RateLimitDashboard {

	/**
	 * The page's path under the actuator base path.
	 */
	public static final String PATH = "/ratelimits-dashboard";

	private final String path;

	private final byte[] page;

	/**
	 * @param actuatorBasePath where the actuator's endpoints are, such as
	 * {@code /actuator}
	 */
	public RateLimitDashboard(String actuatorBasePath) {
		this.path = actuatorBasePath + PATH;
		this.page = template().replace("__ACTUATOR_BASE__", javaScriptString(actuatorBasePath))
			.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * The route that serves the page on {@code GET}.
	 */
	public RouterFunction<ServerResponse> route() {
		return RouterFunctions.route(RequestPredicates.GET(this.path), this::page);
	}

	private Mono<ServerResponse> page(ServerRequest request) {
		return ServerResponse.ok()
			.contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
			.cacheControl(CacheControl.noStore())
			.bodyValue(this.page);
	}

	private static String template() {
		try (InputStream in = RateLimitDashboard.class.getResourceAsStream("dashboard.html")) {
			if (in == null) {
				throw new IllegalStateException("dashboard.html is missing from " + RateLimitDashboard.class.getPackageName());
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A JavaScript string literal that cannot end the script element it sits in.
	 */
	static String javaScriptString(String value) {
		StringBuilder literal = new StringBuilder("'");
		for (char c : value.toCharArray()) {
			if (c == '\'' || c == '\\' || c == '<' || c == '>' || c < 0x20) {
				literal.append(String.format("\\u%04x", (int) c));
			}
			else {
				literal.append(c);
			}
		}
		return literal.append('\'').toString();
	}

}
