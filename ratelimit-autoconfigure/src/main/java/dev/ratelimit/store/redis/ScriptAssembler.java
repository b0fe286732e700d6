package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import dev.ratelimit.algorithm.Algorithm;

/**
 * Builds the limiter's two script forms from one Lua source per algorithm
 * ({@code <algorithm>.lua}, as {@code token_bucket.lua}): the generic script, which
 * judges any tier in any mode, and a lean script per limit, an acquire on a tier of that
 * one limit in straight lines (a function in a script is a closure Redis creates on every
 * call, so the lean form defines none), the limit's numbers and tag constants of the
 * script ({@link LeanLimit}) rather than arguments of every call. Their calls are
 * {@link ScriptProtocol}'s.
 * <p>
 * An algorithm's file is its maths once, in sections that each start with a line
 * {@code --@<name>}, written as straight-line Lua on named locals:
 * <ul>
 * <li>{@code --@fields a b}: the state kept in the bucket key, in the order stored (at
 * most three; none for a state kept elsewhere); {@code --@fractional a}: those of them
 * that may hold a fraction (a shaping token bucket's tokens go below zero), written with
 * 17 significant digits, the others as integers; {@code --@state c}: state that is not
 * stored.</li>
 * <li>{@code --@load}: the fields hold what was stored, {@code nil} for a new bucket or a
 * changed limit; leaves the state as of {@code now}.</li>
 * <li>{@code --@probe}: judges {@code cost}, changing nothing: sets {@code allowed} (a
 * boolean), {@code remaining}, {@code reset} and {@code retry_after} (microseconds), as
 * {@link dev.ratelimit.algorithm.Decision}, and a shaping bucket's {@code delay}
 * (microseconds an admitted request is held, {@code 0} unless set).</li>
 * <li>{@code --@commit}: consumes {@code cost}. {@code --@charge}: takes {@code units}
 * without judging them, past the quota if need be (a debt that refuses every request
 * until it has room again, which the probe must say). {@code --@refund}: gives back
 * {@code units} taken at the instant {@code leased_at}: a lease's, or a held request's
 * decision, which is at or just before it. {@code --@describe}: sets {@code described},
 * the state for display. The last three are the generic script's only.</li>
 * <li>{@code --@idle}, optional: sets {@code idle}, the microseconds until the state,
 * left idle, is as good as new, as {@link dev.ratelimit.algorithm.Limit#idleNanos} gives
 * it but without its floor, the idle timeout: the drivers keep the bucket key for the
 * longest of these and the tier's idle timeout, so that no debt is forgiven by its
 * expiry. An algorithm whose state needs no longer than its idle timeout has none.</li>
 * <li>{@code --@release} and {@code --@renew}, only in a limit that counts requests in
 * flight (which they mark so): give back the slot of a request whose exchange ended, and
 * renew the calling node's lease on the {@code held} slots it still counts. Such a limit
 * needs the call's {@code node} (the calling store's id) and {@code lease} (milliseconds),
 * which only the generic script reads: it has no lean form.</li>
 * </ul>
 * Every section sees {@code now} and the limit's {@code quota}, {@code period}
 * (microseconds), {@code rate}, {@code max_delay} (microseconds; {@code 0} for a limit
 * that meters), {@code delay_after}, {@code key} (its own key: the sliding window
 * log's list, the concurrency limit's hash) and {@code periods}: {@code nil} but for a
 * window counted in calendar periods, whose {@code period} is then {@code nil} and whose
 * periods the drivers read into a table: {@code periods.index}, the index of the period
 * {@code now} falls in, and, for the index {@code i} of any of the periods passed,
 * {@code periods[i - periods.first + 1]} where it starts and
 * {@code periods[i - periods.first + 2]} where it ends ({@link ScriptProtocol}). Each
 * section runs in a block of its own, so that its
 * own locals stay its own. The generic form wraps each section in a function of the
 * algorithm's table, its state in a table per limit; the lean form puts load, then probe
 * and commit for each cost of the call in turn (several when concurrent requests share a
 * call), then idle, in {@code one_limit_driver.lua}, in place of its line
 * {@code --@algorithm}, and the limit's constants in place of its line {@code --@limit}.
 * <p>
 * Each form has a penalized variant, for a policy with a penalty box: the sections of
 * {@code penalty.lua} in its driver's lines {@code --@blocked} (the client's block looked
 * up, right after the time is read) and {@code --@breach} (a block started, right before
 * the reply), which the unpenalized forms leave out.
 */
final class ScriptAssembler {

	private static final String HEADER = "header.lua";

	/**
	 * The generic script's own helpers and the algorithms' table, before the algorithms.
	 */
	private static final String GENERIC_HELPERS = "algorithms.lua";

	private static final String GENERIC_DRIVER = "tier_driver.lua";

	private static final String LEAN_DRIVER = "one_limit_driver.lua";

	private static final String ALGORITHM_PLACE = "--@algorithm\n";

	private static final String LIMIT_PLACE = "--@limit\n";

	/**
	 * A number as {@link RedisLayout} writes a limit's (as {@link Long#toString(long)} or
	 * {@link Double#toString(double)} do), which is also a Lua numeral.
	 */
	private static final Pattern NUMERAL = Pattern.compile("[0-9]+(\\.[0-9]+)?(E-?[0-9]+)?");

	private static final String PENALTY = "penalty.lua";

	/**
	 * Where a driver's penalized form looks for the client's block, right after reading
	 * the time, and where it starts one, right before it replies.
	 */
	private static final String BLOCKED_PLACE = "--@blocked\n";

	private static final String BREACH_PLACE = "--@breach\n";

	private static final List<String> PENALTY_SECTIONS = List.of("blocked", "breach", "peek");

	/**
	 * Fields the drivers read back from the bucket key per limit ({@code a, b, c}).
	 */
	private static final int MAX_FIELDS = 3;

	/**
	 * What every section sees of its limit, in the generic form.
	 */
	private static final String LIMIT_LOCALS = "\t\tlocal quota, period, rate, max_delay, delay_after, key, periods = "
			+ "p.quota, p.period, p.rate, p.max_delay, p.delay_after, p.key, p.periods\n";

	private static final List<String> REQUIRED_SECTIONS = List.of("fields", "load", "probe", "commit", "charge",
			"refund", "describe");

	/**
	 * The sections of a limit that counts requests in flight, both or neither.
	 */
	private static final List<String> IN_FLIGHT_SECTIONS = List.of("release", "renew");

	private static final List<String> SECTIONS = List.of("fields", "fractional", "state", "load", "probe",
			"commit", "charge", "refund", "release", "renew", "idle", "describe");

	/**
	 * Each algorithm's lean script, its limit's constants left to place: assembled once,
	 * so that the script of a limit first met on a request is made without reading a
	 * source.
	 */
	private static final Map<Algorithm, String> LEAN_TEMPLATES = leanTemplates(false);

	private static final Map<Algorithm, String> PENALIZED_LEAN_TEMPLATES = leanTemplates(true);

	private ScriptAssembler() {
	}

	/**
	 * The generic script: the protocol's constants, the shared helpers, every algorithm
	 * as a table of functions, the driver.
	 */
	static String generic() {
		return generic(unpenalized(read(GENERIC_DRIVER)));
	}

	/**
	 * The generic script's penalized form, for an acquire or a check under a penalty box:
	 * the driver looks for the client's block first and starts one on a breach
	 * ({@code penalty.lua}).
	 */
	static String penalizedGeneric() {
		return generic(penalized(read(GENERIC_DRIVER)));
	}

	private static String generic(String driver) {
		StringBuilder lua = new StringBuilder(ScriptProtocol.luaConstants());
		lua.append(read(HEADER)).append('\n').append(read(GENERIC_HELPERS)).append('\n');
		for (Algorithm algorithm : Algorithm.values()) {
			appendDefinition(lua, algorithm, source(algorithm));
		}
		return lua.append(driver).toString();
	}

	/**
	 * Whether the algorithm has a lean script: all but those that count requests in
	 * flight.
	 */
	static boolean hasLeanForm(Algorithm algorithm) {
		return LEAN_TEMPLATES.containsKey(algorithm);
	}

	/**
	 * The lean script of a limit: the header and the one-limit driver around its
	 * algorithm's load, probe and commit, its numbers and tag as constants. It uses none
	 * of the protocol's named constants: its arguments are few and fixed
	 * ({@link ScriptProtocol#LEAN_ARGUMENTS}).
	 * @throws IllegalArgumentException for an algorithm without a {@linkplain #hasLeanForm
	 * lean form}, or a limit whose numbers are not as {@link RedisLayout} writes them
	 */
	static String lean(LeanLimit limit) {
		return withLimit(LEAN_TEMPLATES, limit);
	}

	/**
	 * The lean script's penalized form, as {@link #penalizedGeneric()} is the generic
	 * script's; it declares the protocol's constants, which its penalty sections use.
	 * @throws IllegalArgumentException as {@link #lean(LeanLimit)}
	 */
	static String penalizedLean(LeanLimit limit) {
		return withLimit(PENALIZED_LEAN_TEMPLATES, limit);
	}

	/**
	 * The script that describes a client's block in force for the actuator, touching
	 * nothing: {@link ScriptProtocol#BLOCK_PEEK_VALUES}, or nothing when none is in
	 * force.
	 */
	static String blockPeek() {
		return penaltySection("peek");
	}

	private static String withLimit(Map<Algorithm, String> templates, LeanLimit limit) {
		String template = templates.get(limit.algorithm());
		if (template == null) {
			throw new IllegalArgumentException(limit.algorithm() + " counts requests in flight and has no lean script");
		}
		return place(template, LIMIT_PLACE, constants(limit));
	}

	/**
	 * Each algorithm's lean script but those that count requests in flight, the penalized
	 * form (which declares the protocol's constants its penalty sections use) or not,
	 * with the driver's line {@code --@limit} still in place.
	 */
	private static Map<Algorithm, String> leanTemplates(boolean penalized) {
		Map<Algorithm, String> templates = new EnumMap<>(Algorithm.class);
		for (Algorithm algorithm : Algorithm.values()) {
			Source source = source(algorithm);
			if (!source.countsInFlight()) {
				String driver = read(LEAN_DRIVER);
				templates.put(algorithm, penalized ? ScriptProtocol.luaConstants() + lean(source, penalized(driver))
						: lean(source, unpenalized(driver)));
			}
		}
		return Collections.unmodifiableMap(templates);
	}

	private static String lean(Source source, String driver) {
		int place = driver.indexOf(ALGORITHM_PLACE);
		if (place < 0) {
			throw new IllegalStateException(LEAN_DRIVER + " lacks its line " + ALGORITHM_PLACE.trim());
		}
		StringBuilder lua = new StringBuilder(read(HEADER)).append('\n').append(driver, 0, place);
		lua.append(source.comment());
		if (!source.fields().isEmpty()) {
			lua.append("local ").append(names(source.fields())).append(" = ")
				.append(String.join(", ", List.of("a", "b", "c").subList(0, source.fields().size()))).append('\n');
		}
		declare(lua, "", source.state());
		lua.append(block("", source.section("load")));
		// Each cost in turn, on the state as the previous one left it: as if each came alone.
		// The reply is built for one request, the usual call, and grows for more.
		lua.append("local consumed = false\nreply = { 0, 0, 0, 0, 0 }\nfor i = 1, cost_count do\n")
			.append("\tlocal cost = cost or costs[i]\n")
			.append("\tlocal allowed, remaining, reset, retry_after\n\tlocal delay = 0\n")
			.append(block("\t", source.section("probe")));
		lua.append("\tlocal replied = (i - 1) * 5\n\tif allowed then\n").append(block("\t\t", source.section("commit")))
			.append("\t\tconsumed = true\n")
			.append("\t\treply[replied + 1], reply[replied + 2], reply[replied + 3], reply[replied + 4], reply[replied + 5] = ")
			.append("1, remaining, reset, retry_after, delay\n\telse\n")
			.append("\t\treply[replied + 1], reply[replied + 2], reply[replied + 3], reply[replied + 4], reply[replied + 5] = ")
			.append("0, remaining, reset, retry_after, 0\n\tend\nend\n");
		if (!source.fields().isEmpty()) {
			lua.append("if consumed then\n\twritten = string.format(").append(format(source, 0, "'%d%s"))
				.append(", requests + judged, tagged, ").append(names(source.fields())).append(")\nend\n");
		}
		if (source.section("idle") != null) {
			lua.append(block("", source.section("idle")));
		}
		return lua.append(driver, place + ALGORITHM_PLACE.length(), driver.length()).toString();
	}

	/**
	 * The limit's locals of the lean driver, as Lua constants: a calendar window's period
	 * is {@code nil}.
	 */
	private static String constants(LeanLimit limit) {
		return "local quota, period, rate, max_delay, delay_after = " + numeral(limit.quota()) + ", "
				+ ((limit.period() != null) ? numeral(limit.period()) : "nil") + ", " + numeral(limit.rate()) + ", "
				+ numeral(limit.maxDelay()) + ", " + numeral(limit.delayAfter()) + "\nlocal idle_ms, tagged = "
				+ numeral(limit.idleMillis()) + ", " + literal(limit.tagged()) + "\n";
	}

	private static String numeral(String number) {
		if (!NUMERAL.matcher(number).matches()) {
			throw new IllegalArgumentException("A lean script's limit takes non-negative decimal numbers, not '"
					+ number + "'");
		}
		return number;
	}

	/**
	 * A Lua string literal of {@code text}: its UTF-8 bytes, each but a letter, digit or
	 * one of {@code |:.@/_- } written as a decimal escape.
	 */
	private static String literal(String text) {
		StringBuilder literal = new StringBuilder(text.length() + 2).append('\'');
		for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
			int c = b & 0xFF;
			boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
					|| "|:.@/_- ".indexOf(c) >= 0;
			if (plain) {
				literal.append((char) c);
			}
			else {
				literal.append('\\').append(String.format(Locale.ROOT, "%03d", c));
			}
		}
		return literal.append('\'').toString();
	}

	/**
	 * A driver without its penalty: its places left out.
	 */
	private static String unpenalized(String driver) {
		return place(place(driver, BLOCKED_PLACE, ""), BREACH_PLACE, "");
	}

	/**
	 * A driver with its penalty: the sections of {@code penalty.lua} in its places.
	 */
	private static String penalized(String driver) {
		return place(place(driver, BLOCKED_PLACE, penaltySection("blocked")), BREACH_PLACE,
				penaltySection("breach"));
	}

	private static String place(String driver, String place, String code) {
		int at = driver.indexOf(place);
		if (at < 0 || driver.indexOf(place, at + 1) >= 0) {
			throw new IllegalStateException("A driver must have its line " + place.trim() + " once");
		}
		return driver.substring(0, at) + code + driver.substring(at + place.length());
	}

	private static String penaltySection(String name) {
		Map<String, StringBuilder> sections = new LinkedHashMap<>();
		StringBuilder current = null;
		for (String line : read(PENALTY).split("\n", -1)) {
			if (line.startsWith("--@")) {
				String section = line.substring(3).trim();
				if (!PENALTY_SECTIONS.contains(section) || sections.containsKey(section)) {
					throw new IllegalStateException(PENALTY + ": unknown or repeated section " + line);
				}
				current = new StringBuilder();
				sections.put(section, current);
			}
			else if (current != null) {
				current.append(line).append('\n');
			}
		}
		if (!sections.keySet().containsAll(PENALTY_SECTIONS)) {
			throw new IllegalStateException(PENALTY + " lacks a section of " + PENALTY_SECTIONS);
		}
		return sections.get(name).toString().stripTrailing() + "\n";
	}

	private static void appendDefinition(StringBuilder lua, Algorithm algorithm, Source source) {
		List<String> variables = new ArrayList<>(source.fields());
		variables.addAll(source.state());
		lua.append(source.comment());
		lua.append("definitions[").append(ScriptProtocol.luaName(algorithm)).append("] = function() return {\n");
		lua.append("\tcounts_in_flight = ").append(source.countsInFlight()).append(",\n");
		lua.append("\tload = function(now, p, a, b, c)\n").append(LIMIT_LOCALS);
		if (!source.fields().isEmpty()) {
			lua.append("\t\tlocal ").append(names(source.fields())).append(" = ")
				.append(String.join(", ", List.of("a", "b", "c").subList(0, source.fields().size()))).append('\n');
		}
		declare(lua, "\t\t", source.state());
		lua.append(block("\t\t", source.section("load")));
		lua.append("\t\treturn { ");
		for (int i = 0; i < variables.size(); i++) {
			lua.append((i > 0) ? ", " : "").append(variables.get(i)).append(" = ").append(variables.get(i));
		}
		lua.append(" }\n\tend,\n");
		lua.append("\tprobe = function(s, now, p, cost)\n").append(LIMIT_LOCALS);
		unpack(lua, variables);
		lua.append("\t\tlocal allowed, remaining, reset, retry_after\n\t\tlocal delay = 0\n")
			.append(block("\t\t", source.section("probe")));
		lua.append("\t\treturn allowed and 1 or 0, remaining, reset, retry_after, allowed and delay or 0\n\tend,\n");
		// A commit marks stored fields changed, so that its limit is written; a refund only
		// when it changed one. A state kept elsewhere leaves the bucket key's text as read.
		lua.append("\tcommit = function(s, now, p, cost)\n").append(LIMIT_LOCALS);
		unpack(lua, variables);
		lua.append(block("\t\t", source.section("commit")));
		pack(lua, variables);
		if (!source.fields().isEmpty()) {
			lua.append("\t\ts.changed = true\n");
		}
		lua.append("\tend,\n");
		lua.append("\tcharge = function(s, now, p, units)\n").append(LIMIT_LOCALS);
		unpack(lua, variables);
		lua.append(block("\t\t", source.section("charge")));
		pack(lua, variables);
		if (!source.fields().isEmpty()) {
			lua.append("\t\ts.changed = true\n");
		}
		lua.append("\tend,\n");
		lua.append("\trefund = function(s, now, p, units, leased_at)\n").append(LIMIT_LOCALS);
		unpack(lua, variables);
		lua.append(block("\t\t", source.section("refund")));
		for (String field : source.fields()) {
			lua.append("\t\tif ").append(field).append(" ~= s.").append(field).append(" then\n");
			lua.append("\t\t\ts.changed = true\n\t\tend\n");
		}
		pack(lua, variables);
		lua.append("\tend,\n");
		if (source.countsInFlight()) {
			// The state is kept in the limit's own key: nothing of the bucket key changes.
			lua.append("\trelease = function(s, now, p)\n").append(LIMIT_LOCALS);
			unpack(lua, variables);
			lua.append(block("\t\t", source.section("release")));
			pack(lua, variables);
			lua.append("\tend,\n");
			lua.append("\trenew = function(s, now, p, held)\n").append(LIMIT_LOCALS);
			unpack(lua, variables);
			lua.append(block("\t\t", source.section("renew")));
			pack(lua, variables);
			lua.append("\tend,\n");
		}
		if (source.section("idle") != null) {
			lua.append("\tidle = function(s, now, p)\n").append(LIMIT_LOCALS);
			unpack(lua, variables);
			lua.append("\t\tlocal idle = 0\n").append(block("\t\t", source.section("idle")));
			lua.append("\t\treturn idle\n\tend,\n");
		}
		lua.append("\tencode = function(s)\n\t\treturn ");
		if (source.fields().isEmpty()) {
			lua.append("nil");
		}
		for (int i = 0; i < source.fields().size(); i++) {
			lua.append((i > 0) ? " .. ' ' .. " : "").append("exact(s.").append(source.fields().get(i)).append(')');
		}
		lua.append("\n\tend,\n");
		lua.append("\tdescribe = function(s, now, p)\n").append(LIMIT_LOCALS);
		unpack(lua, variables);
		lua.append("\t\tlocal described\n").append(block("\t\t", source.section("describe")));
		lua.append("\t\treturn described\n\tend,\n} end\n\n");
	}

	/**
	 * The lean write's format from field {@code from} on, a Lua expression: the literal so
	 * far, then each field as an integer ({@code %d}) or, a fractional one, whichever of
	 * {@code %d} and {@code %.17g} writes it exactly, as the generic script's {@code exact};
	 * one literal per combination, so that no text is joined per call.
	 */
	private static String format(Source source, int from, String literal) {
		if (from == source.fields().size()) {
			return literal + "'";
		}
		String field = source.fields().get(from);
		String next = literal + ((from > 0) ? " " : "");
		if (!source.fractional().contains(field)) {
			return format(source, from + 1, next + "%d");
		}
		return "((" + field + " % 1 == 0 and " + field + " < 2 ^ 53) and " + format(source, from + 1, next + "%d")
				+ " or " + format(source, from + 1, next + "%.17g") + ")";
	}

	private static void declare(StringBuilder lua, String indent, List<String> names) {
		if (!names.isEmpty()) {
			lua.append(indent).append("local ").append(names(names)).append('\n');
		}
	}

	private static void unpack(StringBuilder lua, List<String> variables) {
		if (!variables.isEmpty()) {
			lua.append("\t\tlocal ").append(names(variables)).append(" = ");
			for (int i = 0; i < variables.size(); i++) {
				lua.append((i > 0) ? ", " : "").append("s.").append(variables.get(i));
			}
			lua.append('\n');
		}
	}

	private static void pack(StringBuilder lua, List<String> variables) {
		if (!variables.isEmpty()) {
			lua.append("\t\t");
			for (int i = 0; i < variables.size(); i++) {
				lua.append((i > 0) ? ", " : "").append("s.").append(variables.get(i));
			}
			lua.append(" = ").append(names(variables)).append('\n');
		}
	}

	private static String block(String indent, String code) {
		StringBuilder block = new StringBuilder(indent).append("do\n");
		code.strip().lines().forEach((line) -> block.append(line.isEmpty() ? "" : indent + "\t").append(line).append('\n'));
		return block.append(indent).append("end\n").toString();
	}

	private static String names(List<String> names) {
		return String.join(", ", names);
	}

	private static Source source(Algorithm algorithm) {
		String file = algorithm.name().toLowerCase(Locale.ROOT) + ".lua";
		StringBuilder comment = new StringBuilder();
		Map<String, StringBuilder> sections = new LinkedHashMap<>();
		StringBuilder current = null;
		for (String line : read(file).split("\n", -1)) {
			if (line.startsWith("--@")) {
				String[] words = line.substring(3).trim().split("\\s+", 2);
				if (!SECTIONS.contains(words[0]) || sections.containsKey(words[0])) {
					throw new IllegalStateException(file + ": unknown or repeated section " + line);
				}
				current = new StringBuilder((words.length > 1) ? words[1] : "");
				sections.put(words[0], current);
			}
			else if (current != null) {
				current.append(line).append('\n');
			}
			else {
				comment.append(line).append('\n');
			}
		}
		if (!sections.keySet().containsAll(REQUIRED_SECTIONS)) {
			throw new IllegalStateException(file + " lacks a section of " + REQUIRED_SECTIONS);
		}
		Map<String, String> texts = new LinkedHashMap<>();
		sections.forEach((name, text) -> texts.put(name, text.toString()));
		Source source = new Source(comment.toString(), words(texts.get("fields")),
				words(texts.getOrDefault("fractional", "")), words(texts.getOrDefault("state", "")), texts);
		if (source.fields().size() > MAX_FIELDS || !source.fields().containsAll(source.fractional())) {
			throw new IllegalStateException(file + ": at most " + MAX_FIELDS + " fields, fractional ones among them");
		}
		long inFlightSections = IN_FLIGHT_SECTIONS.stream().filter(sections::containsKey).count();
		if (inFlightSections == 1 || (inFlightSections == 2 && !source.fields().isEmpty())) {
			throw new IllegalStateException(file + ": " + IN_FLIGHT_SECTIONS + " come together, with no fields");
		}
		return source;
	}

	private static List<String> words(String section) {
		String line = section.lines().findFirst().orElse("").trim();
		return line.isEmpty() ? List.of() : List.of(line.split("\\s+"));
	}

	private static String read(String file) {
		try (InputStream in = ScriptAssembler.class.getResourceAsStream(file)) {
			if (in == null) {
				throw new IllegalStateException("Lua source " + file + " is missing from the classpath");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read Lua source " + file, ex);
		}
	}

	/**
	 * An algorithm's file, read: its leading comment, its variables and its sections.
	 */
	private record Source(String comment, List<String> fields, List<String> fractional, List<String> state,
			Map<String, String> sections) {

		String section(String name) {
			return this.sections.get(name);
		}

		boolean countsInFlight() {
			return this.sections.containsKey("release");
		}

	}

}
