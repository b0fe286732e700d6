package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitRuntimeHintsTests {

	private static final String REDIS_SOURCES = "dev/ratelimit/store/redis/";

	@Test
	void everyResourceTheStarterShipsIsHinted() throws IOException, URISyntaxException {
		RuntimeHints hints = registered();
		List<String> shipped = shippedResources();
		assertThat(shipped).contains(REDIS_SOURCES + "header.lua", "dev/ratelimit/actuate/dashboard.html",
				"dev/ratelimit/web/ratelimit-messages.properties");
		assertThat(shipped).allSatisfy((resource) -> assertThat(RuntimeHintsPredicates.resource().forResource(resource))
			.as(resource)
			.accepts(hints));
	}

	@Test
	void everyAlgorithmsLuaSourceIsHintedUnderTheNameTheScriptAssemblerReads() {
		RuntimeHints hints = registered();
		for (Algorithm algorithm : Algorithm.values()) {
			String source = REDIS_SOURCES + algorithm.name().toLowerCase(Locale.ROOT) + ".lua";
			assertThat(RuntimeHintsPredicates.resource().forResource(source)).as(source).accepts(hints);
		}
	}

	@Test
	void translationsOfTheBundledMessagesAreHinted() {
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/ratelimit/web/ratelimit-messages_de.properties"))
			.accepts(registered());
	}

	@Test
	void theFilterArgumentsCanBeBoundByReflection() throws NoSuchMethodException {
		RuntimeHints hints = registered();
		Class<?> config = RateLimitGatewayFilterFactory.Config.class;
		assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(config.getDeclaredConstructor()))
			.accepts(hints);
		for (String method : List.of("getPolicies", "setPolicies", "setPolicy", "getRouteId", "setRouteId")) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(config, method)).as(method)
				.accepts(hints);
		}
	}

	@Test
	void theAutoConfigurationContributesTheHintsToAheadOfTimeProcessing() {
		RuntimeHints hints = processedAheadOfTime(RateLimitAutoConfiguration.class);
		assertThat(RuntimeHintsPredicates.resource().forResource(REDIS_SOURCES + "token_bucket.lua")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(RateLimitGatewayFilterFactory.Config.class))
			.accepts(hints);
	}

	@Test
	void theDisabledAutoConfigurationContributesTheFilterArgumentsHint() {
		RuntimeHints hints = processedAheadOfTime(RateLimitDisabledAutoConfiguration.class, "ratelimit.enabled=false");
		assertThat(RuntimeHintsPredicates.reflection().onType(RateLimitGatewayFilterFactory.Config.class))
			.accepts(hints);
	}

	private static RuntimeHints registered() {
		RuntimeHints hints = new RuntimeHints();
		new RateLimitRuntimeHints().registerHints(hints, RateLimitRuntimeHintsTests.class.getClassLoader());
		return hints;
	}

	/**
	 * The hints that Spring AOT collects from a context of the configuration, as the
	 * build's {@code process-aot} does.
	 */
	private static RuntimeHints processedAheadOfTime(Class<?> configuration, String... properties) {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			TestPropertyValues.of(properties).applyTo(context);
			context.register(configuration);
			DefaultGenerationContext generation = new DefaultGenerationContext(
					new ClassNameGenerator(ClassName.get(RateLimitRuntimeHintsTests.class)), new InMemoryGeneratedFiles());
			new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
			return generation.getRuntimeHints();
		}
	}

	/**
	 * Every file under {@code dev/ratelimit} in the main output that is not a class.
	 */
	private static List<String> shippedResources() throws IOException, URISyntaxException {
		Path root = Path.of(RateLimitRuntimeHints.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		try (Stream<Path> files = Files.walk(root.resolve("dev/ratelimit"))) {
			return files.filter(Files::isRegularFile)
				.map((file) -> root.relativize(file).toString().replace('\\', '/'))
				.filter((name) -> !name.endsWith(".class"))
				.sorted()
				.toList();
		}
	}

}
