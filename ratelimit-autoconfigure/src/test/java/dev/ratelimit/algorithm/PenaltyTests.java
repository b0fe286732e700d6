package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A penalty box's arithmetic on instants: the block a breach starts, its end, the
 * escalation of the breaches after it, and forgiveness, exactly at each boundary.
 */
class PenaltyTests {

	private static final long SECOND = 1_000_000_000L;

	private static final long MINUTE = 60 * SECOND;

	private static final long HOUR = 60 * MINUTE;

	/**
	 * 1m, 10m, 1h; forgiven a day after a block ends.
	 */
	private final Penalty escalating = new Penalty(
			List.of(Duration.ofMinutes(1), Duration.ofMinutes(10), Duration.ofHours(1)), Duration.ofDays(1));

	private final long start = 1_000 * SECOND;

	@Test
	void aFirstBreachBlocksForTheFirstStepUntilExactlyItsEnd() {
		Block block = this.escalating.breach(null, this.start);
		assertThat(block.step()).isEqualTo(1);
		assertThat(block.untilNanos()).isEqualTo(this.start + MINUTE);
		assertThat(block.blocks(this.start + MINUTE - 1)).isTrue();
		assertThat(block.remainingNanos(this.start + MINUTE - 1)).isEqualTo(1);
		assertThat(block.blocks(this.start + MINUTE)).isFalse();
		assertThat(block.remainingNanos(this.start + MINUTE)).isZero();
		assertThat(block.forgivenNanos()).isEqualTo(this.start + MINUTE + 24 * HOUR);
	}

	@Test
	void eachBreachAfterABlockEscalatesAndTheLastStepRepeats() {
		Block first = this.escalating.breach(null, this.start);
		Block second = this.escalating.breach(first, first.untilNanos());
		assertThat(second.step()).isEqualTo(2);
		assertThat(second.untilNanos()).isEqualTo(first.untilNanos() + 10 * MINUTE);
		Block third = this.escalating.breach(second, second.untilNanos() + HOUR);
		assertThat(third.step()).isEqualTo(3);
		assertThat(third.forgivenNanos()).isEqualTo(third.untilNanos() + 24 * HOUR);
		Block fourth = this.escalating.breach(third, third.untilNanos());
		assertThat(fourth.step()).isEqualTo(3);
		assertThat(fourth.untilNanos()).isEqualTo(third.untilNanos() + HOUR);
	}

	@Test
	void aBreachWhileBlockedStartsNothing() {
		Block block = this.escalating.breach(null, this.start);
		assertThat(this.escalating.breach(block, this.start + 30 * SECOND)).isSameAs(block);
		assertThat(this.escalating.breach(block, block.untilNanos() - 1)).isSameAs(block);
	}

	@Test
	void aClientWithoutABreachForForgiveAfterAfterItsBlockStartsAgainAtTheFirstStep() {
		Block second = this.escalating.breach(this.escalating.breach(null, this.start), this.start + MINUTE);
		long forgiven = second.untilNanos() + 24 * HOUR;
		assertThat(second.forgivenNanos()).isEqualTo(forgiven);
		assertThat(this.escalating.breach(second, forgiven - 1).step()).isEqualTo(3);
		Block afresh = this.escalating.breach(second, forgiven);
		assertThat(afresh.step()).isEqualTo(1);
		assertThat(afresh.untilNanos()).isEqualTo(forgiven + MINUTE);
	}

	@Test
	void oneStepRepeatsAndItsRecordIsForgottenWhenTheBlockEnds() {
		Penalty penalty = new Penalty(Duration.ofMinutes(10));
		Block block = penalty.breach(null, this.start);
		assertThat(block.forgivenNanos()).isEqualTo(block.untilNanos()).isEqualTo(this.start + 10 * MINUTE);
		assertThat(block.forgiven(block.untilNanos())).isTrue();
		Block again = penalty.breach(block, block.untilNanos());
		assertThat(again.step()).isEqualTo(1);
		assertThat(again.untilNanos()).isEqualTo(block.untilNanos() + 10 * MINUTE);
	}

	@Test
	void aStepBeyondFewerStepsServesTheLast() {
		Block third = new Block(3, this.start, this.start + HOUR);
		Penalty fewer = new Penalty(List.of(Duration.ofMinutes(1), Duration.ofMinutes(5)), Duration.ofHours(2));
		Block next = fewer.breach(third, this.start);
		assertThat(next.step()).isEqualTo(2);
		assertThat(next.untilNanos()).isEqualTo(this.start + 5 * MINUTE);
	}

	@Test
	void instantsSaturateRatherThanOverflow() {
		Penalty penalty = new Penalty(List.of(Duration.ofDays(365), Duration.ofDays(3650)), Duration.ofDays(36500));
		Block block = penalty.breach(null, Long.MAX_VALUE - SECOND);
		assertThat(block.untilNanos()).isEqualTo(Long.MAX_VALUE);
		assertThat(block.forgivenNanos()).isEqualTo(Long.MAX_VALUE);
		assertThat(block.blocks(Long.MAX_VALUE - 1)).isTrue();
	}

	@Test
	void invalidPenaltiesAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Penalty(List.of(), null))
			.withMessageContaining("at least one");
		assertThatIllegalArgumentException().isThrownBy(() -> new Penalty(Duration.ZERO))
			.withMessageContaining("block-for[0]");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Penalty(List.of(Duration.ofMinutes(1), Duration.ofSeconds(-1)), Duration.ofDays(1)))
			.withMessageContaining("block-for[1]");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Penalty(List.of(Duration.ofMinutes(1), Duration.ofMinutes(2)), null))
			.withMessageContaining("forgive-after");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Penalty(List.of(Duration.ofMinutes(1)), Duration.ofDays(1)))
			.withMessageContaining("forgive-after");
	}

	@Test
	void aBlockedVerdictConsultsNoLimitAndRetriesWhenTheBlockEnds() {
		Block block = this.escalating.breach(null, this.start);
		Verdict verdict = Verdict.blocked(block, 59 * SECOND + 1);
		assertThat(verdict.allowed()).isFalse();
		assertThat(verdict.blocked()).isTrue();
		assertThat(verdict.startedBlock()).isFalse();
		assertThat(verdict.fallback()).isFalse();
		assertThat(verdict.limitCount()).isZero();
		assertThat(verdict.block()).isSameAs(block);
		assertThat(verdict.retryAfterSeconds()).isEqualTo(60);
	}

	@Test
	void aBreachsVerdictKeepsItsDecisionsAndRetriesOnceBothTheLimitsAndTheBlockAllow() {
		Block block = this.escalating.breach(null, this.start);
		Decision rejected = Decision.rejected(0, 10, 5 * SECOND);
		Verdict breach = Verdict.of(rejected).startingBlock(block, MINUTE);
		assertThat(breach.startedBlock()).isTrue();
		assertThat(breach.blocked()).isFalse();
		assertThat(breach.decision(0)).isSameAs(rejected);
		assertThat(breach.reportedIndex()).isZero();
		assertThat(breach.retryAfterNanos()).isEqualTo(MINUTE);
		Decision longer = Decision.rejected(0, 10, 2 * HOUR);
		Verdict longerThanTheBlock = Verdict.of(new Decision(true, 3, 10, SECOND, 0), longer)
			.startingBlock(block, MINUTE);
		assertThat(longerThanTheBlock.retryAfterNanos()).isEqualTo(2 * HOUR);
		assertThat(longerThanTheBlock.reportedIndex()).isEqualTo(1);
		assertThat(longerThanTheBlock.limitCount()).isEqualTo(2);
		assertThat(Verdict.of(rejected).block()).isNull();
	}

}
