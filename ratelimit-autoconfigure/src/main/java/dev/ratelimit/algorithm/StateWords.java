package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * The numbers of one client's state for one {@link Limit}: three words, and, for a
 * sliding window log, an extension holding its entries. The words mean nothing by
 * themselves: each algorithm names them through accessors of its own (a token bucket's
 * tokens and refill instant, a window's index and counts), and no other class reads or
 * writes them, but {@link #copyTo} copying a state whole. Not thread-safe: whoever holds
 * it makes each probe-and-commit atomic.
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

	/**
	 * Make {@code to} hold this state as it is, whatever its algorithm: the state of an
	 * unchanged limit on a live reload.
	 */
	final void copyTo(StateWords to) {
		to.word0 = this.word0;
		to.word1 = this.word1;
		to.word2 = this.word2;
		Object extension = extension();
		if (extension != null) {
			to.extension(extension);
		}
	}

}
