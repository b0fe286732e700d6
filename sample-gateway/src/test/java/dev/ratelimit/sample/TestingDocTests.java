package dev.ratelimit.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/testing.md shows {@link OrdersPolicyTests} verbatim, so that the example users
 * copy is one that runs and passes.
 */
class TestingDocTests {

	@Test
	void theTestingGuideShowsOrdersPolicyTestsVerbatim() throws IOException {
		String source = Files.readString(Path.of("src/test/java/dev/ratelimit/sample/OrdersPolicyTests.java"));
		String guide = Files.readString(Path.of("../docs/testing.md"));
		assertThat(guide).contains("```java\n" + source + "```\n");
	}

}
