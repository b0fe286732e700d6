package dev.ratelimit.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BucketIdTests {

	/**
	 * FIPS 180-2's two-block message and its SHA-256.
	 */
	private static final String LONG = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmno"
			+ "pqklmnopqrlmnopqrsmnopqrstnopqrstu";

	private static final String LONG_DIGEST = "sha256:cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1";

	@Test
	void keysUpToTheBoundAreKeptAsTheyAre() {
		for (String key : new String[] { "203.0.113.7", "2001:db8:0:0:0:0:0:1", "x".repeat(64), "ключ",
				"\u0000\r\n}{*?[\\", "🔑".repeat(32) }) {
			assertThat(BucketId.storedKey(key)).isSameAs(key);
		}
	}

	@Test
	void longerKeysAreKeptAsTheSha256OfTheirUtf8Bytes() {
		assertThat(BucketId.storedKey(LONG)).isEqualTo(LONG_DIGEST);
		assertThat(BucketId.storedKey("ключ".repeat(20)))
			.isEqualTo("sha256:115bc3503e50cd7eb9ab44c1331ce2a16b33ce780cc9a0e3439fe256afec2078");
		assertThat(BucketId.storedKey("x".repeat(65))).startsWith("sha256:").hasSize(71);
		assertThat(BucketId.storedKey("x".repeat(65))).isNotEqualTo(BucketId.storedKey("x".repeat(66)));
	}

	@Test
	void aClientSendingADigestDoesNotLandInTheBucketOfTheKeyItDigests() {
		// A digest is longer than the bound, so sent as a key it is digested again.
		assertThat(BucketId.storedKey(LONG_DIGEST)).startsWith("sha256:").isNotEqualTo(LONG_DIGEST);
	}

	@Test
	void operatorsNameAKeyByItselfOrByTheDigestListingsShow() {
		assertThat(BucketId.lookupKey("203.0.113.7")).isEqualTo("203.0.113.7");
		assertThat(BucketId.lookupKey(LONG)).isEqualTo(LONG_DIGEST);
		assertThat(BucketId.lookupKey(LONG_DIGEST)).isEqualTo(LONG_DIGEST);
		assertThat(BucketId.lookupKey(LONG_DIGEST.toUpperCase())).isEqualTo(BucketId.storedKey(LONG_DIGEST.toUpperCase()));
	}

	@Test
	void anIdEqualsTheBucketsThatSayTheyAreItsAndHashesAsTheirKeysHashSays() {
		BucketId id = new BucketId("orders", "anonymous", "203.0.113.7");
		IdentifiedBucket same = (policy, tier, key) -> policy.equals("orders") && tier.equals("anonymous")
				&& "203.0.113.7".equals(key);
		IdentifiedBucket other = (policy, tier, key) -> false;
		assertThat(id).isEqualTo(same).isNotEqualTo(other).isNotEqualTo("203.0.113.7");
		assertThat(id.hashCode()).isEqualTo(BucketId.hash("orders", "anonymous", "203.0.113.7".hashCode()));
		assertThat(id.hashCode()).isNotEqualTo(new BucketId("orders", "pro", "203.0.113.7").hashCode());
	}

}
