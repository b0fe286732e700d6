package dev.ratelimit.web;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

import dev.ratelimit.web.BodyChunks.Read;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import static dev.ratelimit.web.BodyChunks.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random JSON documents with a random number at a random path, among siblings that
 * hold the path's names and other numbers elsewhere, written with random whitespace and
 * escapes, sent as JSON, as gzip or as the data of an event stream's last event: the
 * pointer to that path reads the number back, whole, byte by byte and cut at random.
 */
class BodyNumbersPropertiesTests {

	private static final List<String> NAME_PARTS = List.of("a", "b", "usage", "~", "/", "\"", "\\", "\u00e9",
			"\u20ac", "\ud83d\ude00", "\n", "\t", "\b", "\f", "\r", "\u0001", "0", "1", " ");

	private static final List<String> WHITESPACE = List.of("", "", " ", "\n", "\t", "\r\n", "  ");

	enum Framing {

		JSON, GZIP, EVENT_STREAM

	}

	/**
	 * A step of the path: a member's name, or an element's index when {@code name} is
	 * null.
	 */
	record Step(String name, int index) {

		boolean isMember() {
			return this.index < 0;
		}

		String token() {
			return isMember() ? this.name.replace("~", "~0").replace("/", "~1") : Integer.toString(this.index);
		}

	}

	/**
	 * A number as written, and the value it reads as.
	 */
	record Written(String text, Number value) {

	}

	@Property(tries = 400)
	void readsBackTheNumberAtItsPointerForEveryCutting(@ForAll("paths") List<Step> path,
			@ForAll("numbers") Written number, @ForAll long noise, @ForAll Framing framing,
			@ForAll @Size(max = 12) List<@IntRange(min = 1, max = 100_000) Integer> cuts) {
		Random random = new Random(noise);
		String document = new Documents(random).render(path, 0, number.text());
		String pointer = path.stream().map((step) -> "/" + step.token()).collect(Collectors.joining());
		byte[] body = switch (framing) {
			case JSON -> utf8(document);
			case GZIP -> BodyNumbersEncodingTests.gzip(utf8(document));
			case EVENT_STREAM -> utf8(": a stream\n\n" + event(new Documents(random).render(path, 0, "-1"), random)
					+ event(document, random) + "data: [DONE]\n\n");
		};
		String contentType = (framing == Framing.EVENT_STREAM) ? "text/event-stream" : "application/json";
		String coding = (framing == Framing.GZIP) ? "gzip" : null;
		int[] at = cuts.stream().mapToInt((cut) -> cut % Math.max(1, body.length)).sorted().distinct().toArray();
		Read expected = new Read(Map.of(pointer, number.value()), null);
		assertThat(BodyChunks.readCut(contentType, coding, body, at, pointer)).as("%s", document).isEqualTo(expected);
		assertThat(BodyChunks.readInChunks(contentType, coding, body, 1, pointer)).isEqualTo(expected);
	}

	/**
	 * The document as an event's data: its lines, wherever its whitespace breaks them,
	 * each a data line ended by CR, LF or CRLF, then a blank line.
	 */
	private static String event(String document, Random random) {
		StringBuilder event = new StringBuilder();
		String end = "";
		for (String line : document.split("\r\n|\r|\n", -1)) {
			end = List.of("\n", "\r", "\r\n").get(random.nextInt(3));
			event.append(random.nextBoolean() ? "data: " : "data:").append(line).append(end);
		}
		// After a CR, a lone LF would end the same line, not a blank one.
		return event.append(end.equals("\r") ? "\r" : "\n").toString();
	}

	@Provide
	Arbitrary<List<Step>> paths() {
		Arbitrary<String> names = Arbitraries.of(NAME_PARTS).list().ofMaxSize(4).map((parts) -> String.join("", parts));
		Arbitrary<Step> members = names.map((name) -> new Step(name, -1));
		Arbitrary<Step> elements = Arbitraries.integers().between(0, 11).map((index) -> new Step("", index));
		return Arbitraries.oneOf(members, members, elements).list().ofMaxSize(6);
	}

	@Provide
	Arbitrary<Written> numbers() {
		Arbitrary<Written> longs = Arbitraries.longs().map((value) -> new Written(Long.toString(value), value));
		Arbitrary<Written> fractions = Combinators
			.combine(Arbitraries.integers().between(-1_000_000_000, 1_000_000_000),
					Arbitraries.integers().between(1, 999_999))
			.as((whole, millionths) -> whole + Math.copySign(millionths / 1e6, whole))
			.map((value) -> new Written(Double.toString(value), value));
		Arbitrary<Written> tiny = scientific(-300, -9);
		Arbitrary<Written> beyondALong = scientific(19, 300);
		Arbitrary<Written> wholeFractions = Combinators
			.combine(Arbitraries.integers().between(-1_000_000, 1_000_000), Arbitraries.integers().between(0, 3))
			.as((value, form) -> new Written(switch (form) {
				case 0 -> value + ".0";
				case 1 -> value + "e0";
				case 2 -> (value * 100L) + "E-2";
				default -> (value / 100.0) + "e+2";
			}, (long) value));
		return Arbitraries.oneOf(longs, fractions, tiny, beyondALong, wholeFractions);
	}

	/**
	 * Six digits times a power of ten, as Java writes doubles ({@code 1.234E-12}).
	 */
	private static Arbitrary<Written> scientific(int minExponent, int maxExponent) {
		return Combinators
			.combine(Arbitraries.integers().between(-999_999, 999_999).filter((digits) -> digits != 0),
					Arbitraries.integers().between(minExponent, maxExponent))
			.as((digits, exponent) -> Double.parseDouble(digits + "e" + exponent))
			.map((value) -> new Written(Double.toString(value), value));
	}

	/**
	 * Writes a document around the path, from random choices.
	 */
	private record Documents(Random random) {

		String render(List<Step> path, int level, String number) {
			if (level == path.size()) {
				return space() + number + space();
			}
			Step step = path.get(level);
			String inner = render(path, level + 1, number);
			StringBuilder text = new StringBuilder(space());
			if (step.isMember()) {
				text.append('{');
				int before = this.random.nextInt(3);
				int after = this.random.nextInt(3);
				for (int i = 0; i < before + after + 1; i++) {
					if (i > 0) {
						text.append(',');
					}
					String name = (i == before) ? step.name() : decoyName(step.name());
					text.append(space()).append(string(name)).append(space()).append(':');
					text.append((i == before) ? inner : noise(path, 2));
				}
				text.append('}');
			}
			else {
				text.append('[');
				int after = this.random.nextInt(3);
				for (int i = 0; i <= step.index() + after; i++) {
					if (i > 0) {
						text.append(',');
					}
					text.append((i == step.index()) ? inner : noise(path, 2));
				}
				text.append(']');
			}
			return text.append(space()).toString();
		}

		/**
		 * A name that is not the step's but may start or end like it.
		 */
		private String decoyName(String name) {
			String decoy = switch (this.random.nextInt(4)) {
				case 0 -> name + "x";
				case 1 -> "x" + name;
				case 2 -> name.isEmpty() ? "e" : name.substring(0, name.length() - 1);
				default -> NAME_PARTS.get(this.random.nextInt(NAME_PARTS.size()));
			};
			return decoy.equals(name) ? name + "\u00e9" : decoy;
		}

		/**
		 * A value other than the one at the path, which may hold the path's names and
		 * numbers of its own.
		 */
		private String noise(List<Step> path, int depth) {
			int kind = this.random.nextInt(depth > 0 ? 8 : 5);
			String value = switch (kind) {
				case 0 -> Long.toString(this.random.nextLong());
				case 1 -> Double.toString(this.random.nextGaussian() * 1e6);
				case 2 -> string(NAME_PARTS.get(this.random.nextInt(NAME_PARTS.size())) + "}]\"");
				case 3 -> List.of("true", "false", "null").get(this.random.nextInt(3));
				case 4 -> "[]";
				case 5 -> "[" + noise(path, depth - 1) + "," + noise(path, depth - 1) + "]";
				default -> {
					String name = path.stream()
						.filter(Step::isMember)
						.map(Step::name)
						.findAny()
						.orElse("usage");
					yield "{" + string(name) + ":" + noise(path, depth - 1) + "}";
				}
			};
			return space() + value + space();
		}

		/**
		 * A JSON string: each character as is or as an escape, where RFC 8259 section 7
		 * lets it be either.
		 */
		private String string(String value) {
			StringBuilder text = new StringBuilder("\"");
			value.codePoints().forEach((c) -> {
				int shortEscape = "\"\\/\b\f\n\r\t".indexOf(c);
				if (shortEscape >= 0 && (c == '"' || c == '\\' || c < 0x20) && this.random.nextBoolean()) {
					text.append('\\').append("\"\\/bfnrt".charAt(shortEscape));
				}
				else if (c == '"' || c == '\\' || c < 0x20 || this.random.nextInt(4) == 0) {
					for (char unit : Character.toChars(c)) {
						text.append(String.format(this.random.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) unit));
					}
				}
				else if (c == '/' && this.random.nextBoolean()) {
					text.append("\\/");
				}
				else {
					text.appendCodePoint(c);
				}
			});
			return text.append('"').toString();
		}

		private String space() {
			return WHITESPACE.get(this.random.nextInt(WHITESPACE.size()));
		}

	}

}
