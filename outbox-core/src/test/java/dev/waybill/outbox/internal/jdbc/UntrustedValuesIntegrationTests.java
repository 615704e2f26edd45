package dev.waybill.outbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.TestSchema;

/**
 * What PostgreSQL would refuse or JSON would mangle, through {@link JdbcOutboxStore} on a real
 * database: typed header values and U+0000 in headers and error texts.
 */
class UntrustedValuesIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(5);

	private static TestSchema schema;

	private static JdbcOutboxStore store;

	private static JdbcTemplate jdbc;

	@BeforeAll
	static void createTables() {
		schema = TestSchema.withWaybillTables("untrusted_values");
		store = new JdbcOutboxStore(schema.dataSource(), schema.tables());
		jdbc = new JdbcTemplate(schema.dataSource());
	}

	@AfterAll
	static void dropTables() {
		schema.close();
	}

	@Test
	@SuppressWarnings("unchecked")
	void typedHeadersAndNulCharactersAreStoredAndReadBackUnchanged() {
		Map<String, Object> table = new LinkedHashMap<>();
		table.put("when", new Date(1_700_000_000_000L));
		table.put("k\0", "v\0");
		Map<String, Object> headers = new LinkedHashMap<>();
		headers.put("tenant", "acme");
		headers.put("sent", new Date(1_700_000_000_000L));
		headers.put("bytes", new byte[] { 0, 1, (byte) 0xfe });
		headers.put("table", table);
		headers.put("array", List.of("a", 2L, new byte[] { 3 }));
		headers.put("count", 7L);
		headers.put("amount", new BigDecimal("9.90"));
		headers.put("nul", "a\0b");
		headers.put("name\0with-nul", "v");
		headers.put("$amqp", Map.of("$amqp", "timestamp", "value", "2023-11-14T22:13:20Z"));
		OutboxScope scope = scope(headers);

		store.write(scope);
		ClaimedScope claimed = claim(scope.id());

		Map<String, Object> read = claimed.messages().get(0).headers();
		assertThat(read).containsOnlyKeys(headers.keySet());
		assertThat(read.get("tenant")).isEqualTo("acme");
		assertThat(read.get("sent")).isInstanceOf(Date.class).isEqualTo(new Date(1_700_000_000_000L));
		assertThat(read.get("bytes")).isInstanceOf(byte[].class).isEqualTo(new byte[] { 0, 1, (byte) 0xfe });
		assertThat(read.get("table")).isInstanceOf(Map.class).isEqualTo(table);
		assertThat(read.get("array")).isInstanceOf(List.class);
		assertThat((List<Object>) read.get("array")).containsExactly("a", 2L, new byte[] { 3 });
		assertThat(read.get("count")).isEqualTo(7L);
		assertThat(read.get("amount")).isEqualTo(new BigDecimal("9.90"));
		assertThat(read.get("nul")).isEqualTo("a\0b");
		assertThat(read.get("name\0with-nul")).isEqualTo("v");
		assertThat(read.get("$amqp")).isEqualTo(Map.of("$amqp", "timestamp", "value", "2023-11-14T22:13:20Z"));
	}

	@Test
	void plainHeadersStayPlainJsonForSql() {
		OutboxScope scope = scope(Map.of("tenant", "acme", "priority", 3, "urgent", true));

		store.write(scope);

		assertThat(jdbc.queryForList("SELECT headers->>'tenant' || ' ' || (headers->'priority')::int || ' ' "
				+ "|| (headers->'urgent')::boolean FROM " + schema.tables().qualifiedOutboxMessage()
				+ " WHERE outbox_id = ?", String.class, scope.id())).containsExactly("acme 3 true");
	}

	@Test
	void errorTextsWithNulAndUnpairedSurrogatesAreRecorded() {
		OutboxScope retried = scope(Map.of());
		OutboxScope dead = scope(Map.of());
		store.write(retried);
		store.write(dead);
		assertThat(store.claim("relay-a", LEASE, 100)).extracting(ClaimedScope::id).contains(retried.id(), dead.id());

		assertThat(store.retryLater(retried.id(), "relay-a", "NOT_FOUND - no exchange 'a\0b'", Duration.ofHours(1)))
			.isTrue();
		String longError = "x".repeat(StoreStatements.MAX_ERROR_LENGTH - 1) + "\uD83D\uDE80";
		assertThat(store.deadLetter(dead.id(), "relay-a", longError + "\0\uD800")).isTrue();

		assertThat(lastError(retried.id())).isEqualTo("NOT_FOUND - no exchange 'a\uFFFDb'");
		assertThat(lastError(dead.id())).as("cut before the surrogate pair").isEqualTo("x".repeat(StoreStatements.MAX_ERROR_LENGTH - 1));
	}

	private static ClaimedScope claim(UUID scopeId) {
		return store.claim("relay-a", LEASE, 100).stream().filter((c) -> c.id().equals(scopeId)).findFirst().orElseThrow();
	}

	private static String lastError(UUID scopeId) {
		return jdbc.queryForObject("SELECT last_error FROM " + schema.tables().qualifiedOutboxState() + " WHERE id = ?",
				String.class, scopeId);
	}

	private static OutboxScope scope(Map<String, Object> headers) {
		OutboxMessage message = new OutboxMessage(TimeOrderedUuids.next(), "orders", "key", "test.message",
				"application/json", headers, "{}".getBytes(StandardCharsets.UTF_8), null, null, null, Instant.now(), null);
		return new OutboxScope(UUID.randomUUID(), List.of(message), null, null);
	}

}
