package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * The numbers of one client's state for one {@link Limit}: three words whose meaning
 * the limit defines (a token bucket's tokens and refill instant, a window's index and
 * counts), and, for a sliding window log, an extension holding its entries. Not
 * thread-safe: whoever holds it makes each probe-and-commit atomic.
 * <p>
 * The words are fields of this class, not of a class per algorithm, so that a
 * {@link Bucket} can hold the state of its tier's only limit itself and a store can
 * keep a client's identity in the same object: one object per client.
 */
public abstract class StateWords {

	long word0;

	long word1;

	long word2;

	protected StateWords() {
	}

	/**
	 * What does not fit in the words: a sliding window log's entries, or a bucket's
	 * states of a tier of several limits; {@code null} until one is set.
	 */
	protected @Nullable Object extension() {
		return null;
	}

	/**
	 * Keep {@code extension} as what does not fit in the words.
	 * @throws IllegalStateException when this object keeps only words, as a bucket whose
	 * limits {@link Bucket#keepsOnlyWords(java.util.List) keep only words} may
	 */
	protected void extension(@Nullable Object extension) {
		throw new IllegalStateException(getClass().getSimpleName() + " keeps only words");
	}

}
