package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.support.MonotonicClock;

import org.springframework.http.HttpHeaders;

/**
 * Writes one set of rate limit headers for a request of a route, describing every
 * limit of every policy that judged it, as one tier's headers describe its limits: the
 * limits of the policies, in the order the route names them, are listed as one tier's
 * would be, and the verdicts of their tiers are read as one verdict over all of them
 * ({@link Verdict#of(Decision...)}). So in {@code draft-11} {@code RateLimit-Policy}
 * and {@code RateLimit} have one item per limit of every policy, the least remaining
 * first (draft-ietf-httpapi-ratelimit-headers-11 sections 3 and 4), and in
 * {@code draft-06} the three fields describe the limit with the least remaining of all
 * (draft-ietf-httpapi-ratelimit-headers-06 section 4). A request one policy judged gets
 * that tier's own headers, computed when the route was built; the writer of several
 * tiers together is built the first time they judge a request together, and kept.
 */
final class RouteHeaders {

	private final HeaderStyle style;

	/**
	 * The writers of tiers judging together, by the set of their
	 * {@linkplain PolicyJudge.TierOnRoute#ordinal() ordinals}.
	 */
	private final ConcurrentMap<Long, RateLimitHeaders> together = new ConcurrentHashMap<>();

	/**
	 * The clock the route's in-memory store decides by, which tells the window of a
	 * limit counted in calendar periods: the current period's length.
	 */
	private final MonotonicClock clock;

	RouteHeaders(HeaderStyle style, MonotonicClock clock) {
		this.style = style;
		this.clock = clock;
	}

	/**
	 * Write the headers describing the first {@code count} judgements, those whose
	 * verdict consulted limits; none when none did (a store failing open).
	 */
	void write(HttpHeaders headers, PolicyJudgement[] judgements, int count) {
		PolicyJudgement only = null;
		int described = 0;
		int limits = 0;
		for (int i = 0; i < count; i++) {
			Verdict verdict = judgements[i].described();
			if (verdict != null && verdict.limitCount() > 0) {
				only = judgements[i];
				described++;
				limits += verdict.limitCount();
			}
		}
		if (described == 1) {
			only.tier().judged().headers().write(headers, only.described());
		}
		else if (described > 1) {
			writeTogether(headers, judgements, count, limits);
		}
	}

	private void writeTogether(HttpHeaders headers, PolicyJudgement[] judgements, int count, int limits) {
		Decision[] decisions = new Decision[limits];
		long tiers = 0;
		boolean keyed = true;
		int at = 0;
		for (int i = 0; i < count; i++) {
			Verdict verdict = judgements[i].described();
			if (verdict != null && verdict.limitCount() > 0) {
				for (int limit = 0; limit < verdict.limitCount(); limit++) {
					decisions[at++] = verdict.decision(limit);
				}
				int ordinal = judgements[i].tier().ordinal();
				keyed &= ordinal < Long.SIZE;
				tiers |= 1L << ordinal;
			}
		}
		RateLimitHeaders writer = keyed
				? this.together.computeIfAbsent(tiers, (key) -> writer(judgements, count))
				: writer(judgements, count);
		writer.write(headers, Verdict.of(decisions));
	}

	private RateLimitHeaders writer(PolicyJudgement[] judgements, int count) {
		List<LimitDescription> limits = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			Verdict verdict = judgements[i].described();
			if (verdict != null && verdict.limitCount() > 0) {
				Collections.addAll(limits, judgements[i].tier().judged().limits());
			}
		}
		return RateLimitHeaders.of(this.style, limits, this.clock);
	}

}
