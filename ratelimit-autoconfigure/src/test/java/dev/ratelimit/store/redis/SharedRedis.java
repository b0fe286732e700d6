package dev.ratelimit.store.redis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One {@link TestRedis} for a test class: started before its first test, emptied
 * before each test (before the class's own {@code @BeforeEach} methods), closed after
 * its last.
 */
final class SharedRedis implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

	private TestRedis redis;

	@Override
	public void beforeAll(ExtensionContext context) {
		this.redis = TestRedis.start();
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		this.redis.flushAll();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		this.redis.close();
	}

	TestRedis get() {
		return this.redis;
	}

	ReactiveStringRedisTemplate template() {
		return this.redis.template();
	}

	StringRedisTemplate blockingTemplate() {
		return this.redis.blockingTemplate();
	}

}
