package dev.ratelimit.web;

import dev.ratelimit.policy.RequestScope;
import org.jspecify.annotations.Nullable;

import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * A policy's {@link RequestScope} on the request path: whether the policy applies to a
 * request at all (its methods and paths), and whether the request's client is exempt
 * (its address, as the trusted proxies resolve it, its API key or its tier). A policy
 * that sets none of it costs a field read per request.
 */
final class ScopeCheck {

	private final RequestScope scope;

	private final ClientAddressResolver clientAddresses;

	private final boolean coversEveryRequest;

	private final boolean exemptsNoOne;

	private final boolean exemptsAddresses;

	/**
	 * @param clientAddresses the client's address, as the policies' trusted proxies
	 * resolve it
	 */
	ScopeCheck(RequestScope scope, ClientAddressResolver clientAddresses) {
		this.scope = scope;
		this.clientAddresses = clientAddresses;
		this.coversEveryRequest = scope.coversEveryRequest();
		this.exemptsNoOne = scope.exemptsNoOne();
		this.exemptsAddresses = !scope.exemptAddresses().isEmpty();
	}

	/**
	 * Whether the policy applies to the request: its method is one of the policy's
	 * methods and its path, within the context path and as this filter sees it,
	 * matches one of the policy's paths.
	 */
	boolean covers(ServerHttpRequest request) {
		return this.coversEveryRequest
				|| this.scope.covers(request.getMethod(), request.getPath().pathWithinApplication());
	}

	/**
	 * Whether the request's client is exempt from the policy.
	 * @param knownApiKey the request's API key when it is a configured one, otherwise
	 * {@code null}
	 * @param tier the tier the request is judged under
	 */
	boolean exempts(ServerHttpRequest request, @Nullable String knownApiKey, String tier) {
		if (this.exemptsNoOne) {
			return false;
		}
		if (this.scope.exempts(knownApiKey, tier)) {
			return true;
		}
		if (!this.exemptsAddresses) {
			return false;
		}
		byte[] address = this.clientAddresses.address(request);
		return address != null && this.scope.exemptsAddress(address);
	}

	/**
	 * Whether a request known only by its key, as a {@code RateLimiter} bean's is, is
	 * exempt: the key stands for the API key, as it does for the request's tier.
	 */
	boolean exemptsKey(String key, String tier) {
		return !this.exemptsNoOne && this.scope.exempts(key, tier);
	}

}
