package dev.waybill.outbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

class StoreStatementsTests {

	@Test
	void aBlankLeaseOwnerIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> StoreStatements.requireOwner(" "))
			.withMessage("leaseOwner must not be blank");
		assertThatIllegalArgumentException().isThrownBy(() -> StoreStatements.requireOwner(null))
			.withMessage("leaseOwner must not be blank");
		StoreStatements.requireOwner("relay-a");
	}

	@Test
	void aLeaseMustBePositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> StoreStatements.requirePositive(Duration.ZERO))
			.withMessage("lease must be positive, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> StoreStatements.requirePositive(Duration.ofSeconds(-1)))
			.withMessage("lease must be positive, was PT-1S");
		StoreStatements.requirePositive(Duration.ofMillis(1));
	}

	@Test
	void errorsAreCutToTheColumnLength() {
		assertThat(StoreStatements.truncate("x".repeat(StoreStatements.MAX_ERROR_LENGTH + 10)))
			.hasSize(StoreStatements.MAX_ERROR_LENGTH);
		assertThat(StoreStatements.truncate("short")).isEqualTo("short");
	}

	@Test
	void claimedTimesAreReadAsEpochMicroseconds() {
		assertThat(ClaimedRows.micros(1_700_000_000_123_456L)).isEqualTo(Instant.parse("2023-11-14T22:13:20.123456Z"));
		assertThat(ClaimedRows.micros(-1L)).isEqualTo(Instant.parse("1969-12-31T23:59:59.999999Z"));
	}

}
