package dev.ratelimit.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.ratelimit.policy.StoreType;

import org.springframework.context.annotation.Conditional;

/**
 * Matches when {@code ratelimit.store} or any policy's own {@code store} names one of
 * the given store types, so that a remote store exists only when something uses it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE, ElementType.METHOD })
@Documented
@Conditional(OnRateLimitStoreCondition.class)
@interface ConditionalOnRateLimitStore {

	/**
	 * The store types one of which must be in use.
	 */
	StoreType[] value();

}
