package dev.waybill.outbox.internal.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.waybill.kernel.WaybillHealthComponent;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.internal.store.StoreDueProbes;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The {@code backlog} component: the pending, due and dead scopes, the pending messages, the age of
 * the oldest pending scope and how long the oldest due scope has been due, read from the database
 * at each check (so it is true also when no relay runs in this process).
 * {@link Status#OUT_OF_SERVICE} when a scope has been due for longer than the maximum: the
 * application runs but its messages do not leave. A scope published for later
 * ({@code notBefore}) or waiting out a retry backoff is not due and does not count. DOWN when the
 * database cannot be read, or does not answer within the timeout: a check never waits longer than
 * that (for a connection from an exhausted pool, a database that is away, a lock on the table),
 * and while one read is still waiting the next check waits for the same read instead of starting
 * another, so a database that hangs holds one thread, not one per check.
 * <p>
 * With other stores, {@code stores} gives each one's figures as the relay of this process last
 * read them (they are not read at the check: hundreds of stores would make it slow), and
 * {@code storesStale} names those whose oldest due scope has waited longer than the maximum. A
 * stale store leaves the status as the default store's: one tenant's outbox that stalls takes no
 * instance out of service for the others.
 *
 * @since 0.1
 */
public final class BacklogHealthIndicator implements WaybillHealthComponent {

	private final OutboxStore store;

	private final Duration maxAge;

	private final Clock clock;

	private final Duration timeout;

	private final WaybillThreads threads;

	private @Nullable CompletableFuture<OutboxStats> read;

	private volatile @Nullable OtherStores otherStores;

	/**
	 * Creates the component.
	 * @param store the outbox store
	 * @param maxAge how long a scope may have been due before the backlog is stale
	 * @param timeout how long a check waits for the database before it reports DOWN
	 * @param clock the clock to compare creation times with
	 * @param threads where the thread that reads the database comes from
	 */
	public BacklogHealthIndicator(OutboxStore store, Duration maxAge, Duration timeout, Clock clock,
			WaybillThreads threads) {
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.maxAge = Objects.requireNonNull(maxAge, "maxAge must not be null");
		this.timeout = Objects.requireNonNull(timeout, "timeout must not be null");
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.threads = Objects.requireNonNull(threads, "threads must not be null");
		if (maxAge.isNegative() || maxAge.isZero()) {
			throw new IllegalArgumentException("maxAge must be positive, was " + maxAge);
		}
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("timeout must be positive, was " + timeout);
		}
	}

	/**
	 * Sets the stores besides the default one, whose figures the health gives too.
	 * @param names the names of the registered stores, now (the default one among them is skipped)
	 * @param probes the relay's readings of their backlogs
	 */
	public void setOtherStores(Supplier<List<String>> names, StoreDueProbes probes) {
		this.otherStores = new OtherStores(Objects.requireNonNull(names, "names must not be null"),
				Objects.requireNonNull(probes, "probes must not be null"));
	}

	@Override
	public String name() {
		return "backlog";
	}

	@Override
	public Health health() {
		OutboxStats stats;
		try {
			stats = read().get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			return Health.down()
				.withDetail("error", "the outbox did not answer within " + this.timeout
						+ " (the database is unavailable, its connection pool exhausted, or a lock held on the outbox's tables)")
				.build();
		}
		catch (ExecutionException ex) {
			return Health.down()
				.withDetail("error", "cannot read the outbox: " + ex.getCause().getClass().getSimpleName())
				.build();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Health.unknown().withDetail("error", "interrupted").build();
		}
		Duration nextDueIn = stats.nextDueIn();
		// the earliest next attempt is in the past: that scope has waited this long since it fell due
		Duration dueFor = (nextDueIn != null && nextDueIn.isNegative()) ? nextDueIn.negated() : Duration.ZERO;
		Health.Builder health = (dueFor.compareTo(this.maxAge) > 0) ? Health.outOfService() : Health.up();
		health.withDetail("pendingScopes", stats.pendingScopes())
			.withDetail("pendingMessages", stats.pendingMessages())
			.withDetail("dueScopes", stats.dueScopes())
			.withDetail("deadScopes", stats.deadScopes())
			.withDetail("oldestDueFor", dueFor.toString())
			.withDetail("oldestPendingAge", stats.lag(this.clock.instant()).toString())
			.withDetail("maxAge", this.maxAge.toString());
		OtherStores others = this.otherStores;
		if (others != null) {
			others.describe(health, this.maxAge, this.clock.instant());
		}
		return health.build();
	}

	/** The stores besides the default one, and the relay's readings of their backlogs. */
	private record OtherStores(Supplier<List<String>> names, StoreDueProbes probes) {

		void describe(Health.Builder health, Duration maxAge, Instant now) {
			Map<String, Object> stores = new LinkedHashMap<>();
			List<String> stale = new ArrayList<>();
			for (String name : this.names.get()) {
				if (WaybillStore.DEFAULT_NAME.equals(name)) {
					continue;
				}
				Duration dueFor = this.probes.oldestDueFor(name);
				Map<String, Object> store = new LinkedHashMap<>();
				Optional<StoreDueProbes.StoreBacklog> backlog = this.probes.backlog(name);
				if (backlog.isPresent()) {
					OutboxStats stats = backlog.get().stats();
					store.put("pendingScopes", stats.pendingScopes());
					store.put("pendingMessages", stats.pendingMessages());
					store.put("dueScopes", stats.dueScopes());
					store.put("deadScopes", stats.deadScopes());
					store.put("oldestPendingAge", stats.lag(now).toString());
					store.put("readAt", backlog.get().readAt().toString());
				}
				else {
					store.put("readAt", "not yet: the relay reads each store's backlog where it runs");
				}
				store.put("oldestDueFor", dueFor.toString());
				if (dueFor.compareTo(maxAge) > 0) {
					stale.add(name);
				}
				stores.put(name, store);
			}
			health.withDetail("stores", stores);
			if (!stale.isEmpty()) {
				health.withDetail("storesStale", stale);
			}
		}

	}

	/** The read in progress, or a new one: never more than one at a time. */
	private synchronized CompletableFuture<OutboxStats> read() {
		CompletableFuture<OutboxStats> current = this.read;
		if (current == null || current.isDone()) {
			CompletableFuture<OutboxStats> next = new CompletableFuture<>();
			this.threads.newThread("waybill-health-backlog", () -> {
				try {
					next.complete(this.store.stats());
				}
				catch (Throwable ex) {
					next.completeExceptionally(ex);
				}
			}).start();
			current = next;
			this.read = current;
		}
		return current;
	}

}
