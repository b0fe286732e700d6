package dev.ratelimit.algorithm;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

import dev.ratelimit.algorithm.CalendarPeriods.Unit;
import org.junit.jupiter.api.Test;

import static dev.ratelimit.algorithm.CalendarPeriodsTests.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the state of a limit counted in calendar periods becomes on a live reload, as
 * {@link BucketTakeOverTests} has it for the other limits: a changed quota over the same
 * periods carries the counts over, other periods (another unit or zone, or aligned
 * windows of the same length) start afresh.
 */
class CalendarTakeOverTests {

	private static final long NOW = at("2025-03-15T12:00:00Z");

	private static final CalendarPeriods MONTHS = CalendarPeriods.of(Unit.MONTH, ZoneId.of("UTC"));

	private static final CalendarPeriods PARIS_MONTHS = CalendarPeriods.of(Unit.MONTH, ZoneId.of("Europe/Paris"));

	@Test
	void aMonthlyFixedWindowKeepsItsCountUnderARaisedLimit() {
		Bucket after = takenOver(spent(FixedWindow.inCalendar(3, MONTHS), 3), FixedWindow.inCalendar(10, MONTHS));
		assertThat(after.peek(0, NOW).remaining()).isEqualTo(7);
		assertThat(after.peek(0, NOW).resetNanos()).isEqualTo(at("2025-04-01T00:00:00Z") - NOW);
	}

	@Test
	void aMonthlyFixedWindowStartsAfreshInAnotherZoneOrUnitOrUnderAlignedWindows() {
		for (Limit next : List.of(FixedWindow.inCalendar(3, PARIS_MONTHS),
				FixedWindow.inCalendar(3, CalendarPeriods.of(Unit.WEEK, ZoneId.of("UTC"))),
				new FixedWindow(3, Duration.ofDays(31)))) {
			assertThat(takenOver(spent(FixedWindow.inCalendar(3, MONTHS), 3), next).peek(0, NOW).remaining())
				.as(next.toString())
				.isEqualTo(3);
		}
		// An aligned window of a month's longest length is no month either way.
		assertThat(takenOver(spent(new FixedWindow(3, Duration.ofDays(31)), 3), FixedWindow.inCalendar(3, MONTHS))
			.peek(0, NOW)
			.remaining()).isEqualTo(3);
	}

	@Test
	void aMonthlySlidingWindowCounterKeepsItsCountsUnderARaisedLimit() {
		long february = at("2025-02-20T00:00:00Z");
		Bucket before = Bucket.of(List.of(SlidingWindowCounter.inCalendar(10, MONTHS)), february);
		before.settle(february, 6, february, false);
		before.tryAcquire(NOW, 2);
		Bucket after = takenOver(before, SlidingWindowCounter.inCalendar(20, MONTHS));
		assertThat(after.describe(0, NOW)).containsEntry("current", 2L).containsEntry("previous", 6L);
		assertThat(takenOver(after, SlidingWindowCounter.inCalendar(20, PARIS_MONTHS)).describe(0, NOW))
			.containsEntry("current", 0L)
			.containsEntry("previous", 0L);
	}

	private static Bucket spent(Limit limit, long units) {
		Bucket bucket = Bucket.of(List.of(limit), NOW);
		for (long i = 0; i < units; i++) {
			bucket.tryAcquire(NOW, 1);
		}
		return bucket;
	}

	private static Bucket takenOver(Bucket previous, Limit next) {
		Bucket bucket = Bucket.of(List.of(next), NOW);
		bucket.takeOver(previous, NOW);
		return bucket;
	}

}
