package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.policy.StoreType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata the build generates (from the properties' Javadoc and
 * additional-spring-configuration-metadata.json), read from the build output as an
 * IDE reads it from the jar: every {@code ratelimit.*} key is described, and the keys
 * with choices offer them.
 */
class ConfigurationMetadataTests {

	private final String metadata = generatedMetadata();

	@Test
	void everyRateLimitPropertyHasADescription() {
		List<Map<String, Object>> properties = JsonPath.read(this.metadata, "$.properties[*]");
		List<String> undescribed = new ArrayList<>();
		int rateLimitProperties = 0;
		for (Map<String, Object> property : properties) {
			String name = (String) property.get("name");
			if (name.startsWith("ratelimit.")) {
				rateLimitProperties++;
				Object description = property.get("description");
				if (!(description instanceof String text) || text.isBlank()) {
					undescribed.add(name);
				}
			}
		}
		assertThat(rateLimitProperties).isGreaterThan(30);
		assertThat(undescribed).as("ratelimit.* properties without a description").isEmpty();
	}

	@Test
	void everyHintBelongsToAProperty() {
		List<String> names = JsonPath.read(this.metadata, "$.properties[*].name");
		Set<String> properties = new TreeSet<>(names);
		List<String> hinted = JsonPath.read(this.metadata, "$.hints[*].name");
		assertThat(hinted).isNotEmpty().allSatisfy((name) -> assertThat(properties).contains(name));
	}

	@Test
	void algorithmsAreOfferedAllAndOnly() {
		assertThat(hintValues("ratelimit.policies.*.tiers.*[*].algorithm"))
			.containsExactlyInAnyOrderElementsOf(Arrays.stream(Algorithm.values()).map(Algorithm::configName).toList());
	}

	@Test
	void storesAreOfferedAllAndOnly() {
		List<String> stores = Arrays.stream(StoreType.values()).map(StoreType::storeName).toList();
		assertThat(hintValues("ratelimit.store")).containsExactlyInAnyOrderElementsOf(stores);
		assertThat(hintValues("ratelimit.policies.*.store")).containsExactlyInAnyOrderElementsOf(stores);
	}

	@Test
	void calendarsAreOfferedAllAndOnly() {
		assertThat(hintValues("ratelimit.policies.*.tiers.*[*].calendar")).containsExactlyInAnyOrderElementsOf(
				Arrays.stream(CalendarPeriods.Unit.values()).map(CalendarPeriods.Unit::configName).toList());
	}

	@Test
	void everyKindOfKeyIsOffered() {
		assertThat(hintValues("ratelimit.policies.*.key")).contains("api-key", "ip", "principal", "route", "method",
				"path")
			.anyMatch((value) -> value.startsWith("header:"))
			.anyMatch((value) -> value.startsWith("query:"))
			.anyMatch((value) -> value.startsWith("cookie:"))
			.anyMatch((value) -> value.startsWith("claim:"))
			.anyMatch((value) -> value.startsWith("#{@"));
	}

	@Test
	void aPolicysKeyIsAListAndItsScopeIsDescribed() {
		assertThat(this.<String>propertyField("ratelimit.policies.*.key", "type"))
			.isEqualTo("java.util.List<java.lang.String>");
		assertThat(this.<List<String>>propertyField("ratelimit.policies.*.key", "defaultValue"))
			.containsExactly("api-key");
		for (String scope : new String[] { "methods", "paths", "exempt.addresses", "exempt.api-keys",
				"exempt.tiers" }) {
			assertThat(this.<String>propertyField("ratelimit.policies.*." + scope, "type"))
				.isEqualTo("java.util.List<java.lang.String>");
		}
		assertThat(hintValues("ratelimit.policies.*.methods")).containsExactly("GET", "HEAD", "POST", "PUT", "DELETE",
				"CONNECT", "OPTIONS", "TRACE", "PATCH");
	}

	private <T> T propertyField(String property, String field) {
		List<T> values = JsonPath.read(this.metadata, "$.properties[?(@.name == '" + property + "')]." + field);
		assertThat(values).as(property).hasSize(1);
		return values.get(0);
	}

	private List<String> hintValues(String property) {
		return JsonPath.read(this.metadata, "$.hints[?(@.name == '" + property + "')].values[*].value");
	}

	/**
	 * This module's generated metadata, from the directory this module's classes were
	 * compiled to, not from any jar on the class path.
	 */
	private static String generatedMetadata() {
		try {
			Path classes = Path.of(RateLimitProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI());
			return Files.readString(classes.resolve("META-INF/spring-configuration-metadata.json"));
		}
		catch (IOException | URISyntaxException ex) {
			throw new IllegalStateException("Could not read the generated configuration metadata", ex);
		}
	}

}
