package dev.waybill.outbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.AdminAudit;
import dev.waybill.outbox.MessagePreview;
import dev.waybill.outbox.ScopeDetails;
import dev.waybill.outbox.ScopePage;
import dev.waybill.outbox.ScopeStatus;
import dev.waybill.outbox.ScopeSummary;
import dev.waybill.outbox.internal.DefaultOutboxAdmin;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

/**
 * The operators' view of the outbox on a real PostgreSQL: pages of dead and pending scopes, one
 * scope's messages bounded in number and size, deleting dead scopes only, and the audit of every
 * change made through {@link DefaultOutboxAdmin}.
 */
class JdbcOutboxBrowserIntegrationTests {

	private static TestSchema schema;

	private static JdbcOutboxStore store;

	private static JdbcOutboxBrowser browser;

	private static JdbcTemplate jdbc;

	private final List<String> counted = new ArrayList<>();

	@BeforeAll
	static void createTables() {
		schema = TestSchema.withWaybillTables("browser");
		store = new JdbcOutboxStore(schema.dataSource(), schema.tables());
		browser = new JdbcOutboxBrowser(schema.dataSource(), schema.tables());
		jdbc = new JdbcTemplate(schema.dataSource());
	}

	@AfterAll
	static void dropTables() {
		schema.close();
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE " + schema.tables().qualifiedOutboxState() + ", " + schema.tables().qualifiedOutboxMessage());
	}

	@Test
	void deadScopesArePagedOldestFirstWithTheirErrorAndFilteredByDestination() {
		List<UUID> dead = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			dead.add(dead((i % 2 == 0) ? "orders" : "invoices", "boom " + i));
		}
		store.write(TestMessages.scope("orders", "pending"));

		ScopePage first = browser.scopes(ScopeStatus.DEAD, null, 0, 2);
		ScopePage last = browser.scopes(ScopeStatus.DEAD, null, 4, 2);

		assertThat(first.total()).isEqualTo(5);
		assertThat(first.scopes()).extracting(ScopeSummary::id).containsExactly(dead.get(0), dead.get(1));
		assertThat(last.scopes()).extracting(ScopeSummary::id).containsExactly(dead.get(4));
		ScopeSummary summary = first.scopes().get(0);
		assertThat(summary.status()).isEqualTo(ScopeStatus.DEAD);
		assertThat(summary.lastError()).isEqualTo("boom 0");
		assertThat(summary.attempts()).isEqualTo(1);
		assertThat(summary.destinations()).containsExactly("orders");
		assertThat(summary.routingKeys()).containsExactly("key");
		assertThat(summary.messageTypes()).containsExactly("test.message");
		assertThat(summary.messageCount()).isEqualTo(1);
		assertThat(summary.age()).isBetween(Duration.ZERO, Duration.ofMinutes(1));
		ScopePage invoices = browser.scopes(ScopeStatus.DEAD, "invoices", 0, 10);
		assertThat(invoices.total()).isEqualTo(2);
		assertThat(invoices.scopes()).extracting(ScopeSummary::id).containsExactly(dead.get(1), dead.get(3));
		assertThat(browser.scopes(ScopeStatus.PENDING, null, 0, 10).scopes()).singleElement()
			.satisfies((pending) -> assertThat(pending.status()).isEqualTo(ScopeStatus.PENDING));
		assertThatIllegalArgumentException().isThrownBy(() -> browser.scopes(ScopeStatus.DEAD, null, 0, 501));
		assertThatIllegalArgumentException().isThrownBy(() -> browser.scopes(ScopeStatus.DEAD, null, -1, 10));
		assertThatIllegalArgumentException().isThrownBy(() -> browser.scopes(ScopeStatus.DEAD, "orders\u0000", 0, 10))
			.withMessageContaining("U+0000");
	}

	@Test
	void aScopeIsShownWithBoundedMessagesAndBodyPreviews() {
		byte[] binary = { (byte) 0xff, (byte) 0xfe, 0, 1 };
		String text = "héllo wörld";
		OutboxScope scope = new OutboxScope(UUID.randomUUID(),
				List.of(message(text.getBytes(StandardCharsets.UTF_8)), message(binary), message("third".getBytes())),
				null, null);
		store.write(scope);

		ScopeDetails cut = browser.scope(scope.id(), 2, 2).orElseThrow();
		ScopeDetails whole = browser.scope(scope.id(), 100, 4096).orElseThrow();

		assertThat(cut.messages()).hasSize(2);
		MessagePreview first = cut.messages().get(0);
		assertThat(first.bodyPreview()).isEqualTo("h");
		assertThat(first.bodyTruncated()).isTrue();
		assertThat(first.bodySize()).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
		assertThat(first.headers()).containsEntry("tenant", "acme").containsEntry("priority", "3")
			.containsEntry("raw", "base64:AQI=");
		assertThat(whole.messages()).hasSize(3);
		assertThat(whole.messages().get(0).bodyPreview()).isEqualTo(text);
		assertThat(whole.messages().get(0).bodyTruncated()).isFalse();
		assertThat(whole.messages().get(1).bodyPreview()).isEqualTo("base64://4AAQ==");
		assertThat(whole.scope().status()).isEqualTo(ScopeStatus.PENDING);
		assertThat(browser.scope(UUID.randomUUID(), 10, 10)).isEmpty();
		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxState() + " SET status = 'published' WHERE id = ?",
				scope.id());
		assertThat(browser.scope(scope.id(), 10, 10)).as("published scopes are not the console's").isEmpty();
	}

	@Test
	void deleteRemovesDeadScopesAndTheirMessagesOnlyAndIsAudited() {
		UUID dead = dead("orders", "boom");
		OutboxScope pending = TestMessages.scope("orders", "keep me");
		store.write(pending);
		DefaultOutboxAdmin admin = new DefaultOutboxAdmin(store, new RelayWakeUp(), browser,
				new AdminAudit(() -> java.util.stream.Stream.of(this.counted::add), java.time.Clock.systemUTC()));

		int deleted = admin.deleteDead(List.of(dead, pending.id()), "alice");

		assertThat(deleted).isEqualTo(1);
		assertThat(count(schema.tables().qualifiedOutboxState())).isEqualTo(1);
		assertThat(count(schema.tables().qualifiedOutboxMessage())).as("the dead scope's messages went with it")
			.isEqualTo(1);
		assertThat(this.counted).containsExactly("outbox.delete");
		assertThat(admin.deleteDead(List.of(), "alice")).isZero();
	}

	@Test
	void deleteCommitsAlsoWhenThePoolDoesNotAutoCommit() {
		// spring.datasource.hikari.auto-commit=false: before, the delete ran in a transaction nobody
		// committed, rolled back when the connection went back to the pool, while the console said
		// the scopes were deleted.
		UUID dead = dead("orders", "boom");
		try (HikariDataSource manual = TestPostgres.get().manualCommitPool("browser-manual-commit", 2)) {
			JdbcOutboxBrowser manualBrowser = new JdbcOutboxBrowser(manual, schema.tables());

			assertThat(manualBrowser.deleteDead(List.of(dead))).isEqualTo(1);

			assertThat(count(schema.tables().qualifiedOutboxState())).isZero();
			assertThat(manualBrowser.scopes(ScopeStatus.DEAD, null, 0, 10).total()).isZero();
		}
	}

	@Test
	void redriveWithAnActorIsAuditedAndMakesTheScopePendingAgain() {
		UUID dead = dead("orders", "boom");
		DefaultOutboxAdmin admin = new DefaultOutboxAdmin(store, new RelayWakeUp(), browser,
				new AdminAudit(() -> java.util.stream.Stream.of(this.counted::add), java.time.Clock.systemUTC()));

		assertThat(admin.redrive(List.of(dead), "bob")).isEqualTo(1);

		assertThat(admin.scopes(ScopeStatus.PENDING, null, 0, 10).scopes()).extracting(ScopeSummary::id)
			.containsExactly(dead);
		assertThat(admin.scopes(ScopeStatus.PENDING, null, 0, 10).scopes().get(0).attempts()).isZero();
		admin.redriveAll();
		assertThat(this.counted).containsExactly("outbox.redrive", "outbox.redrive");
	}

	private static UUID dead(String destination, String error) {
		OutboxScope scope = TestMessages.scope(destination, "body of " + error);
		store.write(scope);
		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxState() + " SET created_at = clock_timestamp() WHERE id = ?",
				scope.id());
		assertThat(store.claim("relay", Duration.ofMinutes(1), 10)).extracting((c) -> c.id()).contains(scope.id());
		assertThat(store.deadLetter(scope.id(), "relay", error)).isTrue();
		return scope.id();
	}

	private static OutboxMessage message(byte[] body) {
		return new OutboxMessage(UUID.randomUUID(), "orders", "key", "test.message", "application/octet-stream",
				Map.of("tenant", "acme", "priority", 3, "raw", new byte[] { 1, 2 }), body, null, null, null,
				Instant.now(), null);
	}

	private static long count(String table) {
		Long count = jdbc.queryForObject("SELECT count(*) FROM " + table, Long.class);
		return (count != null) ? count : 0;
	}

}
