package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class AuxiliaryTablesTests {

	@Test
	void namesFollowTheCoreTables() {
		AuxiliaryTables defaults = new AuxiliaryTables(OutboxTables.defaults());
		assertThat(defaults.qualifiedSchedule()).isEqualTo("waybill.outbox_state_schedule");
		assertThat(defaults.qualifiedReplay()).isEqualTo("waybill.outbox_state_replay");
		assertThat(defaults.qualifiedArchive()).isEqualTo("waybill.outbox_message_archive");
		AuxiliaryTables billing = new AuxiliaryTables(new OutboxTables("shop", "billing_outbox", "billing_message", "billing_inbox"));
		assertThat(billing.qualifiedSchedule()).isEqualTo("shop.billing_outbox_schedule");
		assertThat(billing.qualifiedArchive()).isEqualTo("shop.billing_message_archive");
	}

	@Test
	void aMessageTableNameTooLongForItsArchiveIsRejected() {
		OutboxTables tables = new OutboxTables("s", "state", "m".repeat(60), "inbox");
		assertThatIllegalArgumentException().isThrownBy(() -> new AuxiliaryTables(tables))
			.withMessageContaining("archive table");
	}

}
