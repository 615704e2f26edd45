package dev.waybill.outbox.internal.health;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * The {@code backlog} component: the pending, due and dead scopes, the pending messages, the age of
 * the oldest pending scope and how long the oldest due scope has been due, read from the database
 * at each check (so it is true also when no relay runs in this process).
 * {@link Status#OUT_OF_SERVICE} when a scope has been due for longer than the maximum: the
 * application runs but its messages do not leave. A scope published for later
 * ({@code notBefore}) or waiting out a retry backoff is not due and does not count. DOWN when the
 * database cannot be read.
 *
 * @since 0.2
 */
public final class BacklogHealthIndicator implements WaybillHealthComponent {

	private final OutboxStore store;

	private final Duration maxAge;

	private final Clock clock;

	/**
	 * Creates the component.
	 * @param store the outbox store
	 * @param maxAge how long a scope may have been due before the backlog is stale
	 * @param clock the clock to compare creation times with
	 */
	public BacklogHealthIndicator(OutboxStore store, Duration maxAge, Clock clock) {
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.maxAge = Objects.requireNonNull(maxAge, "maxAge must not be null");
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		if (maxAge.isNegative() || maxAge.isZero()) {
			throw new IllegalArgumentException("maxAge must be positive, was " + maxAge);
		}
	}

	@Override
	public String name() {
		return "backlog";
	}

	@Override
	public Health health() {
		OutboxStats stats;
		try {
			stats = this.store.stats();
		}
		catch (RuntimeException ex) {
			return Health.down().withDetail("error", "cannot read the outbox: " + ex.getClass().getSimpleName()).build();
		}
		Duration nextDueIn = stats.nextDueIn();
		// the earliest next attempt is in the past: that scope has waited this long since it fell due
		Duration dueFor = (nextDueIn != null && nextDueIn.isNegative()) ? nextDueIn.negated() : Duration.ZERO;
		Health.Builder health = (dueFor.compareTo(this.maxAge) > 0) ? Health.outOfService() : Health.up();
		return health.withDetail("pendingScopes", stats.pendingScopes())
			.withDetail("pendingMessages", stats.pendingMessages())
			.withDetail("dueScopes", stats.dueScopes())
			.withDetail("deadScopes", stats.deadScopes())
			.withDetail("oldestDueFor", dueFor.toString())
			.withDetail("oldestPendingAge", stats.lag(this.clock.instant()).toString())
			.withDetail("maxAge", this.maxAge.toString())
			.build();
	}

}
