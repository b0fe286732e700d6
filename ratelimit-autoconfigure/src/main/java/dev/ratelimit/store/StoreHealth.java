package dev.ratelimit.store;

import java.util.Map;

/**
 * A store's health.
 *
 * @param up whether the store decides by itself (false: a failure mode is in force)
 * @param details what an operator needs to know (store name, bucket count, remote
 * state, failure mode)
 */
public record StoreHealth(boolean up, Map<String, Object> details) {
}
