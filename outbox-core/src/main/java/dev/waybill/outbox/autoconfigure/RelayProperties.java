package dev.waybill.outbox.autoconfigure;

import java.time.Duration;

import dev.waybill.outbox.internal.autoconfigure.PropertyChecks;
import dev.waybill.outbox.relay.DeadScopePolicy;

/**
 * The relay that publishes committed outbox messages to the broker, under
 * {@code waybill.outbox.relay.*}.
 *
 * @since 0.1
 */
public class RelayProperties {

	/**
	 * Whether this instance runs a relay. Instances of one service share the work; turn it off
	 * where an instance should only write.
	 */
	private boolean enabled = true;

	/**
	 * Worker threads, each with its own broker channel.
	 */
	private int workers = 2;

	/**
	 * Most outbox scopes (committed transactions) one claim takes.
	 */
	private int batchSize = 100;

	/**
	 * How long a claim holds unless renewed; the relay renews it every third of it while it still
	 * works on the scope, so a relay that dies leaves scopes another relay takes over after this.
	 */
	private Duration leaseDuration = Duration.ofSeconds(12);

	/**
	 * Fallback check for due scopes; commits and PostgreSQL notifications wake the relay sooner.
	 */
	private Duration pollInterval = Duration.ofSeconds(1);

	/**
	 * How long shutdown waits for outstanding broker confirms before giving the rest back.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(10);

	/**
	 * What a dead scope with an ordering key does to its key's later scopes: block (they wait
	 * until an operator redrives or skips it) or skip (the relay skips it at once; it stays dead).
	 */
	private DeadScopePolicy deadScopeOrdering = DeadScopePolicy.BLOCK;

	/**
	 * Whether this instance's relay publishes the messages this instance writes right after their
	 * commit, without claiming them: they are written leased to it (ordering-keyed and scheduled
	 * scopes excepted, and while the broker is reachable), so no other relay takes them before
	 * the lease ends. Off, every scope waits for a claim.
	 */
	private boolean directDispatch = true;

	/**
	 * How many streaming standbys must have flushed a transaction before the relay publishes its
	 * messages; 0 publishes at once. With asynchronous replication, a failover can lose the last
	 * transactions the old primary acknowledged; waiting for a standby means no message of such a
	 * transaction was published. The database role must be able to read the standbys' positions
	 * (superuser, or a member of {@code pg_monitor}). While fewer standbys stream, nothing is
	 * published.
	 */
	private int awaitStandbys;

	public int getAwaitStandbys() {
		return this.awaitStandbys;
	}

	public void setAwaitStandbys(int awaitStandbys) {
		this.awaitStandbys = awaitStandbys;
	}

	/**
	 * Returns how many standbys the relay waits for.
	 * @return the count, 0 for none
	 * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
	 * when it is negative
	 */
	public int awaitStandbysChecked() {
		PropertyChecks.check("waybill.outbox.relay.await-standbys", this.awaitStandbys, this.awaitStandbys >= 0,
				"at least 0 (0 means publish without waiting for standbys)");
		return this.awaitStandbys;
	}

	public boolean isDirectDispatch() {
		return this.directDispatch;
	}

	public void setDirectDispatch(boolean directDispatch) {
		this.directDispatch = directDispatch;
	}

	public DeadScopePolicy getDeadScopeOrdering() {
		return this.deadScopeOrdering;
	}

	public void setDeadScopeOrdering(DeadScopePolicy deadScopeOrdering) {
		this.deadScopeOrdering = deadScopeOrdering;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getWorkers() {
		return this.workers;
	}

	public void setWorkers(int workers) {
		this.workers = workers;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

	public Duration getLeaseDuration() {
		return this.leaseDuration;
	}

	public void setLeaseDuration(Duration leaseDuration) {
		this.leaseDuration = leaseDuration;
	}

	public Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

}
