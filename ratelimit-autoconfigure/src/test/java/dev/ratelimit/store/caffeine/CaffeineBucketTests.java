package dev.ratelimit.store.caffeine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;

import static org.assertj.core.api.Assertions.assertThat;

class CaffeineBucketTests {

	private static final BucketGroup WORDS = new BucketGroup("orders",
			new Tier("anonymous", List.of(new FixedWindow(5, Duration.ofMinutes(1)))), new LongAdder());

	private static final BucketGroup LOG = new BucketGroup("orders",
			new Tier("anonymous", List.of(new SlidingWindowLog(5, Duration.ofMinutes(1)))), new LongAdder());

	@ParameterizedTest
	@ValueSource(strings = { "", "0", "203.0.113.7", "255.255.255.255", "::1", "1:2:3:4:5:6:7:8", "alice",
			"client-200000", "abcdefghijklmnop", "abcdefghijklmnopq", "2001:db8:0:0:0:0:0:1", "é", "\u0000", "a\u0000",
			"ключ", "\uD83D\uDD11", "sha256:cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" })
	void aBucketEqualsItsIdAndHashesAlikeWhateverItsKeysShape(String key) {
		for (BucketGroup group : List.of(WORDS, LOG)) {
			CaffeineBucket bucket = CaffeineBucket.create(group, key, 0);
			BucketId id = new BucketId("orders", "anonymous", key);
			assertThat(bucket.key()).isEqualTo(key);
			assertThat(bucket.id()).isEqualTo(id);
			assertThat(bucket).isEqualTo(id).hasSameHashCodeAs(id).isEqualTo(CaffeineBucket.create(group, key, 0));
			assertThat(id).isEqualTo(bucket);
			assertThat(bucket).isNotEqualTo(new BucketId("orders", "pro", key))
				.isNotEqualTo(new BucketId("search", "anonymous", key))
				.isNotEqualTo(new BucketId("orders", "anonymous", key + "0"));
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "203.0.113.7", "255.255.255.255", "::1", "1:2:3:4:5:6:7:8", "" })
	void addressesArePackedInOneWord(String key) {
		assertThat(CaffeineBucket.create(WORDS, key, 0)).isInstanceOf(AddressKeyBucket.class);
	}

	@ParameterizedTest
	@ValueSource(strings = { "alice", "client-200000", "abcdefghijklmnop", "2001:db8::1", "é", "1234567890123456" })
	void otherShortKeysArePackedInTwoWords(String key) {
		assertThat(CaffeineBucket.create(WORDS, key, 0)).isInstanceOf(PackedKeyBucket.class);
	}

	@ParameterizedTest
	@ValueSource(strings = { "client-200000", "abcdefghijklmnop", "alice", "2001:db8::1" })
	void aPackedKeyMatchesOnlyAKeyOfTheSameCharactersInBothWords(String key) {
		CaffeineBucket bucket = CaffeineBucket.create(WORDS, key, 0);
		assertThat(bucket).isInstanceOf(PackedKeyBucket.class);
		assertThat(bucket).isEqualTo(new BucketId("orders", "anonymous", new String(key.toCharArray())));
		for (int i = 0; i < key.length(); i++) {
			char[] changed = key.toCharArray();
			changed[i]++;
			assertThat(bucket).isNotEqualTo(new BucketId("orders", "anonymous", new String(changed)));
		}
		assertThat(bucket).isNotEqualTo(new BucketId("orders", "anonymous", key.substring(0, key.length() - 1)))
			.isNotEqualTo(new BucketId("orders", "anonymous", key + "x"))
			.isNotEqualTo(new BucketId("orders", "anonymous", key + "\u0100"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "abcdefghijklmnopq", "2001:db8:0:0:0:0:0:1", "\u0000", "a\u0000", "ключ", "\u0100" })
	void keysThatDoNotFitAreKeptAsStrings(String key) {
		assertThat(CaffeineBucket.create(WORDS, key, 0)).isInstanceOf(StringKeyBucket.class);
	}

	@ParameterizedTest
	@ValueSource(strings = { "203.0.113.7", "alice" })
	void aBucketWithAnExtensionKeepsItsKeyAsAString(String key) {
		assertThat(CaffeineBucket.create(LOG, key, 0)).isInstanceOf(StringKeyBucket.class);
	}

	@ParameterizedTest
	@ValueSource(strings = { "A", "AB", "1.2" })
	void aCharacterAboveOneByteNeverMatchesTheCharacterItsLowByteIs(String key) {
		// U+0141 and U+0131 end in 0x41 and 0x31, 'A' and '1'.
		String lookalike = key.replace('A', '\u0141').replace('1', '\u0131');
		CaffeineBucket bucket = CaffeineBucket.create(WORDS, key, 0);
		assertThat(bucket).isNotEqualTo(new BucketId("orders", "anonymous", lookalike));
		assertThat(bucket).isNotEqualTo(new BucketId("orders", "anonymous", key + "\u0000"));
	}

}
