package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SqlIdentifiersTests {

	@ParameterizedTest
	@ValueSource(strings = { "waybill", "outbox_state", "_private", "t1", "a23456789012345678901234567890123456789012345678901234567890123" })
	void acceptsLowercaseIdentifiers(String name) {
		assertThat(SqlIdentifiers.problem(name)).isNull();
		assertThat(SqlIdentifiers.require("schema", name)).isEqualTo(name);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "Waybill", "1st", "out-box", "out box", "a.b", "x;drop table y", "\"quoted\"", "ünïcode" })
	void rejectsWhatIsNotAPlainLowercaseIdentifier(String name) {
		assertThat(SqlIdentifiers.problem(name)).isNotNull();
	}

	@ParameterizedTest
	@ValueSource(strings = { "select", "user", "order", "table", "group" })
	void rejectsReservedWords(String name) {
		assertThat(SqlIdentifiers.problem(name)).isEqualTo("is a reserved word in PostgreSQL");
	}

	@org.junit.jupiter.api.Test
	void rejectsNamesPostgresqlWouldTruncate() {
		assertThat(SqlIdentifiers.problem("a".repeat(64))).isEqualTo("must be at most 63 characters long");
	}

	@org.junit.jupiter.api.Test
	void theErrorNamesWhatAndTheValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> SqlIdentifiers.require("outbox state table", "Bad"))
			.withMessage("outbox state table 'Bad' must be a lowercase SQL identifier: a letter a-z or '_' followed by "
					+ "letters a-z, digits or '_'");
	}

	@org.junit.jupiter.api.Test
	void tablesRejectAnOutboxStateNameTooLongForItsHistoryTable() {
		assertThatIllegalArgumentException().isThrownBy(() -> new OutboxTables("w", "o".repeat(49), "m", "i"))
			.withMessageContaining("at most 48 characters");
		assertThat(new OutboxTables("w", "o".repeat(48), "m", "i").changelogLockTable()).hasSize(63);
	}

}
