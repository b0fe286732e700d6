package dev.ratelimit.client;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One item of a draft-11 {@code RateLimit} field: the service limit under one quota
 * policy (draft-ietf-httpapi-ratelimit-headers-11 section 4.1).
 *
 * @param policy the policy's name, the item's String
 * @param remaining the available quota, parameter {@code r} (section 4.1.1)
 * @param reset the effective window, parameter {@code t} (section 4.1.2): the time within
 * which the client can use no more than {@code remaining}; {@code null} when the item has
 * none (our server leaves it out for a limit of requests in flight)
 */
public record ServiceLimit(String policy, long remaining, @Nullable Duration reset) {

}
