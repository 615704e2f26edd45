package dev.waybill.kernel;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * Generates version 7 UUIDs (RFC 9562): a 48-bit Unix millisecond timestamp followed by 74
 * random bits, so ids sort by creation time and index well as keys.
 *
 * @since 0.1
 */
public final class TimeOrderedUuids {

	private static final SecureRandom RANDOM = new SecureRandom();

	private TimeOrderedUuids() {
	}

	/**
	 * Returns a new version 7 UUID for the current time.
	 * @return the UUID
	 */
	public static UUID next() {
		return at(System.currentTimeMillis());
	}

	static UUID at(long unixMillis) {
		byte[] random = new byte[10];
		RANDOM.nextBytes(random);
		long msb = (unixMillis & 0xFFFF_FFFF_FFFFL) << 16;
		msb |= 0x7000L; // version 7
		msb |= ((random[0] & 0x0FL) << 8) | (random[1] & 0xFFL);
		long lsb = 0;
		for (int i = 2; i < 10; i++) {
			lsb = (lsb << 8) | (random[i] & 0xFFL);
		}
		lsb = (lsb & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L; // IETF variant
		return new UUID(msb, lsb);
	}

}
