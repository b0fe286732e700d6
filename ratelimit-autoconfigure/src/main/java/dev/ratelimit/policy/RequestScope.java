package dev.ratelimit.policy;

import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Which requests a policy applies to, and which clients it exempts: its
 * {@code methods}, {@code paths} and {@code exempt}, validated at start-up. A request
 * outside its methods or paths is none of the policy's business; an exempt one is the
 * policy's, but is never counted nor limited.
 *
 * @param methods the methods of the requests the policy applies to; empty for every
 * method
 * @param paths the patterns one of which the path of a request the policy applies to
 * matches; empty for every path
 * @param exemptAddresses the client addresses and blocks the policy never limits
 * @param exemptApiKeys the configured API keys the policy never limits
 * @param exemptTiers the tiers of the policy it never limits
 */
public record RequestScope(Set<HttpMethod> methods, List<PathPattern> paths,
		List<TrustedProxies.Block> exemptAddresses, Set<String> exemptApiKeys, Set<String> exemptTiers) {

	/**
	 * Every request, no one exempt: a policy that sets none of it.
	 */
	public static final RequestScope EVERY_REQUEST = new RequestScope(Set.of(), List.of(), List.of(), Set.of(),
			Set.of());

	public RequestScope {
		methods = Set.copyOf(methods);
		paths = List.copyOf(paths);
		exemptAddresses = List.copyOf(exemptAddresses);
		exemptApiKeys = Set.copyOf(exemptApiKeys);
		exemptTiers = Set.copyOf(exemptTiers);
	}

	/**
	 * Whether the policy applies to every method and path.
	 */
	public boolean coversEveryRequest() {
		return this.methods.isEmpty() && this.paths.isEmpty();
	}

	/**
	 * Whether the policy exempts no one.
	 */
	public boolean exemptsNoOne() {
		return this.exemptAddresses.isEmpty() && this.exemptApiKeys.isEmpty() && this.exemptTiers.isEmpty();
	}

	/**
	 * Whether applying the policy takes the request itself, its method, path or client
	 * address, which a Spring Cloud Gateway {@code RateLimiter}, given only a key, never
	 * sees.
	 */
	public boolean needsRequest() {
		return !coversEveryRequest() || !this.exemptAddresses.isEmpty();
	}

	/**
	 * Whether the policy applies to a request of that method and path.
	 * @param path the request's path within the application's context path
	 */
	public boolean covers(HttpMethod method, PathContainer path) {
		if (!this.methods.isEmpty() && !this.methods.contains(method)) {
			return false;
		}
		if (this.paths.isEmpty()) {
			return true;
		}
		for (PathPattern pattern : this.paths) {
			if (pattern.matches(path)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether the client at that address (4 or 16 bytes, as {@link IpAddress#parse}
	 * returns it) is exempt.
	 */
	public boolean exemptsAddress(byte[] address) {
		for (TrustedProxies.Block block : this.exemptAddresses) {
			if (block.contains(address)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether a request of that configured API key, or judged under that tier, is
	 * exempt.
	 * @param apiKey the request's API key when it is a configured one, otherwise
	 * {@code null}
	 * @param tier the tier the request is judged under
	 */
	public boolean exempts(@Nullable String apiKey, String tier) {
		return (apiKey != null && this.exemptApiKeys.contains(apiKey)) || this.exemptTiers.contains(tier);
	}

	/**
	 * The scope without its API keys, which are secrets: only how many there are.
	 */
	@Override
	public String toString() {
		return "RequestScope[methods=" + this.methods + ", paths=" + this.paths + ", exemptAddresses="
				+ this.exemptAddresses + ", exemptApiKeys=" + this.exemptApiKeys.size() + " keys, exemptTiers="
				+ this.exemptTiers + "]";
	}

}
