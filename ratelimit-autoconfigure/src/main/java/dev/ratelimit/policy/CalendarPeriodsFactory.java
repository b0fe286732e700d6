package dev.ratelimit.policy;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.algorithm.CalendarPeriods.Unit;
import dev.ratelimit.policy.PolicySettings.LimitSpec;
import dev.ratelimit.support.ConfigName;
import dev.ratelimit.support.EditDistance;
import org.jspecify.annotations.Nullable;

/**
 * Turns a limit's {@code calendar} and {@code zone} into the {@link CalendarPeriods} it
 * counts in, for {@link LimitFactory}: a calendar on a window algorithm that takes one,
 * in place of its window, a zone only with a calendar, each a name that exists, a
 * misspelt one answered with the name it was likely meant to be.
 */
final class CalendarPeriodsFactory {

	/**
	 * The zone of a calendar configured without one.
	 */
	private static final ZoneId DEFAULT_ZONE = ZoneId.of("UTC");

	/**
	 * The words for a period's rate that name no unit, and the unit they mean.
	 */
	private static final Map<String, Unit> ADJECTIVES = Map.of("daily", Unit.DAY, "weekly", Unit.WEEK, "monthly",
			Unit.MONTH, "yearly", Unit.YEAR, "annual", Unit.YEAR, "annually", Unit.YEAR);

	private CalendarPeriodsFactory() {
	}

	/**
	 * Whether {@code algorithm} may count in calendar periods: the windows that keep one
	 * count per window, whose windows the periods become.
	 */
	static boolean takesCalendar(Algorithm algorithm) {
		return algorithm == Algorithm.FIXED_WINDOW || algorithm == Algorithm.SLIDING_WINDOW_COUNTER;
	}

	/**
	 * @param path where the limit is configured
	 * @return the periods, or {@code null} when the limit sets no calendar or a problem
	 * was added
	 */
	static @Nullable CalendarPeriods periods(String path, LimitSpec spec, Algorithm algorithm,
			List<ConfigurationProblem> problems) {
		String calendar = spec.calendar();
		String zone = spec.zone();
		if (calendar == null) {
			if (zone != null) {
				problems.add(new ConfigurationProblem(path + ".zone", ConfigurationProblem.quoted(zone),
						"must not be set without calendar: it is the time zone of the calendar periods a "
								+ "fixed-window or sliding-window-counter counts in"));
			}
			return null;
		}
		if (!takesCalendar(algorithm)) {
			problems.add(new ConfigurationProblem(path + ".calendar", ConfigurationProblem.quoted(calendar),
					"must not be set for " + algorithm.configName()
							+ ": only fixed-window and sliding-window-counter count in calendar periods"));
			return null;
		}
		int problemsBefore = problems.size();
		Unit unit = unit(path + ".calendar", calendar, problems);
		if (spec.window() != null) {
			problems.add(new ConfigurationProblem(path + ".calendar", ConfigurationProblem.quoted(calendar),
					"must not be set together with window (" + DurationFormat.asConfigured(spec.window())
							+ "): a calendar period's length is its own; set one of them"));
		}
		ZoneId zoneId = (zone != null) ? zone(path + ".zone", zone, problems) : DEFAULT_ZONE;
		if (problems.size() > problemsBefore) {
			return null;
		}
		return CalendarPeriods.of(unit, zoneId);
	}

	private static @Nullable Unit unit(String path, String calendar, List<ConfigurationProblem> problems) {
		for (Unit unit : Unit.values()) {
			if (unit.configName().equals(calendar.trim())) {
				return unit;
			}
		}
		String written = calendar.trim().toLowerCase(Locale.ROOT);
		Unit meant = ADJECTIVES.get(written);
		for (Unit unit : Unit.values()) {
			if (meant == null && EditDistance.between(written, unit.configName()) <= 2) {
				meant = unit;
			}
		}
		problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(calendar),
				"must be " + ConfigName.oneOf(Unit.values())
						+ ((meant != null) ? "; did you mean " + meant.configName() + "?" : "")));
		return null;
	}

	private static @Nullable ZoneId zone(String path, String zone, List<ConfigurationProblem> problems) {
		try {
			return ZoneId.of(zone.trim());
		}
		catch (DateTimeException ex) {
			String meant = nearestZone(zone.trim());
			problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(zone),
					"must be a time-zone id of the IANA database, as Europe/Paris or America/New_York, or UTC"
							+ ((meant != null) ? "; did you mean " + meant + "?" : "")));
			return null;
		}
	}

	/**
	 * The zone id {@code written} was likely meant to be: the nearest, letter case aside,
	 * when it is near enough to be a slip (at most a quarter of its letters, and at least
	 * two, away), else one whose city is what was written ({@code Paris} for
	 * {@code Europe/Paris}); the first in alphabetical order among equals.
	 */
	private static @Nullable String nearestZone(String written) {
		String lower = written.toLowerCase(Locale.ROOT);
		String nearest = null;
		int nearestDistance = Math.max(2, written.length() / 4) + 1;
		String sameCity = null;
		for (String id : new TreeSet<>(ZoneId.getAvailableZoneIds())) {
			String candidate = id.toLowerCase(Locale.ROOT);
			int distance = EditDistance.between(lower, candidate);
			if (distance < nearestDistance) {
				nearest = id;
				nearestDistance = distance;
			}
			String city = candidate.substring(candidate.lastIndexOf('/') + 1);
			if (sameCity == null && city.equals(lower.replace(' ', '_'))) {
				sameCity = id;
			}
		}
		return (nearest != null) ? nearest : sameCity;
	}

}
