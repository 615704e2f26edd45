package dev.waybill.outbox.internal;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.AdminAudit;
import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.ScopeDetails;
import dev.waybill.outbox.ScopePage;
import dev.waybill.outbox.ScopeStatus;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxBrowser;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * {@link OutboxAdmin} over an {@link OutboxStore} and a {@link JdbcOutboxBrowser}. A redrive wakes
 * this process's relay at once; the store's notification wakes the others. Every change is
 * recorded by the {@link AdminAudit}.
 *
 * @since 0.1
 */
public final class DefaultOutboxAdmin implements OutboxAdmin {

	private final OutboxStore store;

	private final RelayWakeUp wakeUp;

	private final @Nullable JdbcOutboxBrowser browser;

	private final AdminAudit audit;

	/** What the audit lines say the changes are in: "" for the default store, "store 'x': " for another. */
	private final String subject;

	/**
	 * Creates the admin of a store other than the default one: its audit lines name the store.
	 * @param store the store's relay store
	 * @param wakeUp the wake-up of this process's relay
	 * @param browser the store's queries that list and delete scopes
	 * @param audit records every change
	 * @param storeName the store's name
	 * @since 0.1
	 */
	public DefaultOutboxAdmin(OutboxStore store, RelayWakeUp wakeUp, JdbcOutboxBrowser browser, AdminAudit audit,
			String storeName) {
		this("store '" + storeName + "': ", store, wakeUp, Objects.requireNonNull(browser, "browser must not be null"),
				audit);
	}

	/**
	 * Creates an admin that can redrive and read statistics, but not list scopes.
	 * @param store the store
	 * @param wakeUp the wake-up of this process's relay
	 */
	public DefaultOutboxAdmin(OutboxStore store, RelayWakeUp wakeUp) {
		this(store, wakeUp, null, AdminAudit.logOnly());
	}

	/**
	 * Creates an admin.
	 * @param store the store
	 * @param wakeUp the wake-up of this process's relay
	 * @param browser the queries that list and delete scopes, or {@literal null} when not available
	 * @param audit records every change
	 * @since 0.1
	 */
	public DefaultOutboxAdmin(OutboxStore store, RelayWakeUp wakeUp, @Nullable JdbcOutboxBrowser browser,
			AdminAudit audit) {
		this("", store, wakeUp, browser, audit);
	}

	private DefaultOutboxAdmin(String subject, OutboxStore store, RelayWakeUp wakeUp,
			@Nullable JdbcOutboxBrowser browser, AdminAudit audit) {
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
		this.browser = browser;
		this.audit = Objects.requireNonNull(audit, "audit must not be null");
		this.subject = subject;
	}

	@Override
	public int redrive(Collection<UUID> scopeIds) {
		return redrive(scopeIds, AdminAudit.APPLICATION);
	}

	@Override
	public int redrive(Collection<UUID> scopeIds, String actor) {
		List<UUID> ids = List.copyOf(scopeIds);
		int redriven = wakeIfAny(this.store.redrive(ids));
		this.audit.record(actor, "outbox.redrive", this.subject + "dead scopes " + ids, redriven);
		return redriven;
	}

	@Override
	public int redriveDestination(String destination) {
		int redriven = wakeIfAny(this.store.redriveDestination(destination));
		this.audit.record(AdminAudit.APPLICATION, "outbox.redrive", this.subject + "dead scopes for destination '" + destination + "'",
				redriven);
		return redriven;
	}

	@Override
	public int redriveAll() {
		int redriven = wakeIfAny(this.store.redriveAll());
		this.audit.record(AdminAudit.APPLICATION, "outbox.redrive", this.subject + "every dead scope", redriven);
		return redriven;
	}

	@Override
	public int deleteDead(Collection<UUID> scopeIds, String actor) {
		List<UUID> ids = List.copyOf(scopeIds);
		int deleted = browser().deleteDead(ids);
		this.audit.record(actor, "outbox.delete", this.subject + "dead scopes " + ids, deleted);
		return deleted;
	}

	@Override
	public ScopePage scopes(ScopeStatus status, @Nullable String destination, int offset, int limit) {
		return browser().scopes(status, destination, offset, limit);
	}

	@Override
	public Optional<ScopeDetails> scope(UUID scopeId, int maxMessages, int previewBytes) {
		return browser().scope(scopeId, maxMessages, previewBytes);
	}

	private JdbcOutboxBrowser browser() {
		if (this.browser == null) {
			throw new UnsupportedOperationException("This OutboxAdmin was created without a JdbcOutboxBrowser");
		}
		return this.browser;
	}

	@Override
	public int skip(Collection<UUID> scopeIds) {
		return wakeIfAny(this.store.skip(scopeIds));
	}

	private int wakeIfAny(int redriven) {
		if (redriven > 0) {
			this.wakeUp.signal(); // the store has notified other instances
		}
		return redriven;
	}

	@Override
	public OutboxStats stats() {
		return this.store.stats();
	}

}
