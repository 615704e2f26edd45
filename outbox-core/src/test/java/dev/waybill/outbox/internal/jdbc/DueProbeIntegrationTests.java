package dev.waybill.outbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;

import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestSchema;

/**
 * {@link DueProbe} on PostgreSQL: one statement tells which of several table sets of a database
 * have a scope a claim would take.
 */
class DueProbeIntegrationTests {

	private TestSchema first;

	private TestSchema second;

	private TestSchema third;

	@BeforeEach
	void setUp() {
		this.first = TestSchema.withWaybillTables("probe_first");
		this.second = TestSchema.withWaybillTables("probe_second");
		this.third = TestSchema.withWaybillTables("probe_third");
	}

	@AfterEach
	void tearDown() {
		this.third.close();
		this.second.close();
		this.first.close();
	}

	@Test
	void onlyTheTableSetsWithADueScopeAreReported() {
		DueProbe probe = new DueProbe(this.first.dataSource(),
				List.of(this.first.tables(), this.second.tables(), this.third.tables()));
		assertThat(probe.due()).isEmpty();

		write(this.second, TestMessages.scope("orders", "due now"));
		write(this.third, new OutboxScope(UUID.randomUUID(),
				List.of(TestMessages.message("orders", "later", Instant.now().plus(Duration.ofHours(1)))), null, null));
		Instant written = Instant.now();
		assertThat(probe.due()).as("the scheduled one is not due yet").containsOnlyKeys(this.second.tables());
		assertThat(probe.due().get(this.second.tables())).as("due since its commit")
			.isBetween(written.minusSeconds(60), written.plusSeconds(1));

		this.second.execute("UPDATE " + this.second.tables().qualifiedOutboxState() + " SET status = 'published'");
		assertThat(probe.due()).isEmpty();
	}

	@Test
	void aTableSetThatIsGoneFailsTheProbe() {
		DueProbe probe = new DueProbe(this.first.dataSource(), List.of(this.first.tables(), this.second.tables()));
		this.second.execute("DROP TABLE " + this.second.tables().qualifiedOutboxState() + " CASCADE");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(probe::due);
	}

	private static void write(TestSchema schema, OutboxScope scope) {
		new JdbcOutboxStore(schema.dataSource(), schema.tables()).write(scope);
	}

}
