package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;

class TimeOrderedUuidsTests {

	@Test
	void areVersion7WithTheIetfVariant() {
		UUID id = TimeOrderedUuids.next();
		assertThat(id.version()).isEqualTo(7);
		assertThat(id.variant()).isEqualTo(2);
	}

	@Test
	void carryTheirMillisecondTimestampInTheFirst48Bits() {
		long millis = 1_795_000_000_123L;
		assertThat(TimeOrderedUuids.at(millis).getMostSignificantBits() >>> 16).isEqualTo(millis);
	}

	@Test
	void sortByCreationTimeAcrossMilliseconds() {
		UUID earlier = TimeOrderedUuids.at(1_000);
		UUID later = TimeOrderedUuids.at(1_001);
		assertThat(earlier.toString()).isLessThan(later.toString());
	}

	@Test
	void doNotRepeat() {
		Set<UUID> ids = new HashSet<>();
		for (int i = 0; i < 200_000; i++) {
			ids.add(TimeOrderedUuids.next());
		}
		assertThat(ids).hasSize(200_000);
	}

}
