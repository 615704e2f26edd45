package dev.waybill.outbox.autoconfigure;

import java.time.Duration;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.SqlIdentifiers;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.internal.relay.RelaySettings;
import dev.waybill.outbox.relay.DeadScopePolicy;

/**
 * Configuration of Waybill's outbox under {@code waybill.*}. Checked as soon as it is bound, on
 * every host (also where no relay runs), so a bad value fails start-up naming the property.
 *
 * @since 0.1
 */
@ConfigurationProperties(WaybillProperties.PREFIX)
public class WaybillProperties implements InitializingBean {

	/** The prefix of every Waybill property. */
	public static final String PREFIX = "waybill";

	/**
	 * Database schema that holds Waybill's tables; created when missing. A lowercase SQL identifier.
	 */
	private String schema = "waybill";

	private final Tables tables = new Tables();

	private final Liquibase liquibase = new Liquibase();

	private final Outbox outbox = new Outbox();

	public String getSchema() {
		return this.schema;
	}

	public void setSchema(String schema) {
		this.schema = schema;
	}

	public Tables getTables() {
		return this.tables;
	}

	public Liquibase getLiquibase() {
		return this.liquibase;
	}

	public Outbox getOutbox() {
		return this.outbox;
	}

	@Override
	public void afterPropertiesSet() {
		validate();
	}

	/**
	 * Checks every property, including the relay's where this instance runs no relay.
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property, its
	 * value, the rule and the fix
	 */
	public void validate() {
		toTables();
		this.outbox.maxMessageBytesChecked();
		this.outbox.maxPendingChecked();
		this.outbox.toRelaySettings();
	}

	/**
	 * Returns the configured tables.
	 * @return the tables
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
	 */
	OutboxTables toTables() {
		OutboxTables defaults = OutboxTables.defaults();
		String schema = identifier("waybill.schema", this.schema, defaults.schema());
		String outboxState = identifier("waybill.tables.outbox-state", this.tables.outboxState, defaults.outboxState());
		String outboxMessage = identifier("waybill.tables.outbox-message", this.tables.outboxMessage,
				defaults.outboxMessage());
		String inboxState = identifier("waybill.tables.inbox-state", this.tables.inboxState, defaults.inboxState());
		try {
			return new OutboxTables(schema, outboxState, outboxMessage, inboxState);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException("waybill.schema", schema,
					ex.getMessage() + " (waybill.tables.outbox-state is '" + outboxState + "')");
		}
	}

	private static String identifier(String property, String value, String example) {
		String problem = SqlIdentifiers.problem(value);
		if (problem != null) {
			throw new InvalidConfigurationPropertyValueException(property, value,
					"The name " + problem + ". Set " + property + " to a name such as '" + example + "'.");
		}
		return value;
	}

	/**
	 * Builds a retry policy from the properties under {@code prefix}, checking each against its rule.
	 * Shared by every Waybill module with {@code <prefix>.strategy/interval/rate/max-delay/max-attempts/jitter}.
	 * @param prefix the properties' prefix, e.g. {@code waybill.outbox.retry}
	 * @param strategy how the wait grows
	 * @param interval the first wait
	 * @param rate the exponential growth factor
	 * @param maxDelay the longest wait
	 * @param maxAttempts attempts before giving up
	 * @param jitter the randomized fraction of each wait
	 * @return the policy
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
	 */
	static RetryPolicy retryPolicy(String prefix, RetryPolicy.Strategy strategy, Duration interval, double rate,
			Duration maxDelay, int maxAttempts, double jitter) {
		Outbox.positive(prefix + ".interval", interval);
		Outbox.check(prefix + ".rate", rate, rate >= 1, "at least 1");
		Outbox.check(prefix + ".max-delay", maxDelay, maxDelay != null && maxDelay.compareTo(interval) >= 0,
				"at least " + prefix + ".interval (" + interval + ")");
		Outbox.check(prefix + ".max-attempts", maxAttempts, maxAttempts >= 1, "at least 1");
		Outbox.check(prefix + ".jitter", jitter, jitter >= 0 && jitter <= 1, "between 0 and 1");
		return new RetryPolicy(strategy, interval, rate, maxDelay, maxAttempts, jitter);
	}

	/**
	 * Names of Waybill's tables inside {@code waybill.schema}.
	 */
	public static class Tables {

		/**
		 * Table of outbox scopes: one row per transaction that published, with delivery status.
		 */
		private String outboxState = "outbox_state";

		/**
		 * Table of outbox messages: envelope and body of every published message.
		 */
		private String outboxMessage = "outbox_message";

		/**
		 * Table of inbox state: one row per consumed message and consumer, for deduplication.
		 */
		private String inboxState = "inbox_state";

		public String getOutboxState() {
			return this.outboxState;
		}

		public void setOutboxState(String outboxState) {
			this.outboxState = outboxState;
		}

		public String getOutboxMessage() {
			return this.outboxMessage;
		}

		public void setOutboxMessage(String outboxMessage) {
			this.outboxMessage = outboxMessage;
		}

		public String getInboxState() {
			return this.inboxState;
		}

		public void setInboxState(String inboxState) {
			this.inboxState = inboxState;
		}

	}

	/**
	 * How Waybill's schema is created.
	 */
	public static class Liquibase {

		/**
		 * Whether to apply Waybill's Liquibase changelog at start-up. Turn off when the application's
		 * own master changelog includes it.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Writing to the outbox and relaying it.
	 */
	public static class Outbox {

		/**
		 * Largest serialized message body accepted by publish; larger ones fail inside the business
		 * transaction.
		 */
		private DataSize maxMessageBytes = DataSize.ofMegabytes(1);

		/**
		 * Most messages that may wait for delivery before publish fails fast with
		 * OutboxFullException; 0 for no limit. Checked against the figure the relay reads every
		 * poll interval, so it is enforced where a relay runs.
		 */
		private long maxPending = 0;

		private final Relay relay = new Relay();

		private final Retry retry = new Retry();

		private final CircuitBreaker circuitBreaker = new CircuitBreaker();

		public DataSize getMaxMessageBytes() {
			return this.maxMessageBytes;
		}

		public void setMaxMessageBytes(DataSize maxMessageBytes) {
			this.maxMessageBytes = maxMessageBytes;
		}

		public long getMaxPending() {
			return this.maxPending;
		}

		public void setMaxPending(long maxPending) {
			this.maxPending = maxPending;
		}

		public Relay getRelay() {
			return this.relay;
		}

		public Retry getRetry() {
			return this.retry;
		}

		public CircuitBreaker getCircuitBreaker() {
			return this.circuitBreaker;
		}

		/**
		 * Returns the body size limit in bytes.
		 * @return the limit
		 * @throws InvalidConfigurationPropertyValueException when it is not positive
		 */
		public long maxMessageBytesChecked() {
			if (this.maxMessageBytes == null || this.maxMessageBytes.toBytes() < 1) {
				throw new InvalidConfigurationPropertyValueException("waybill.outbox.max-message-bytes",
						this.maxMessageBytes, "The limit must be at least 1B. Set it to a size such as 1MB.");
			}
			return this.maxMessageBytes.toBytes();
		}

		/**
		 * Returns the back-pressure limit.
		 * @return the limit, 0 for none
		 * @throws InvalidConfigurationPropertyValueException when it is negative
		 */
		public long maxPendingChecked() {
			check("waybill.outbox.max-pending", this.maxPending, this.maxPending >= 0, "at least 0 (0 means no limit)");
			return this.maxPending;
		}

		/**
		 * Returns the relay settings.
		 * @return the settings
		 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
		 */
		public RelaySettings toRelaySettings() {
			String relay = "waybill.outbox.relay.";
			check(relay + "workers", this.relay.workers, this.relay.workers >= 1, "at least 1");
			check(relay + "batch-size", this.relay.batchSize, this.relay.batchSize >= 1, "at least 1");
			positive(relay + "lease-duration", this.relay.leaseDuration);
			positive(relay + "poll-interval", this.relay.pollInterval);
			positive(relay + "shutdown-timeout", this.relay.shutdownTimeout);
			RetryPolicy policy = this.retry.toRetryPolicy("waybill.outbox.retry");
			String breaker = "waybill.outbox.circuit-breaker.";
			check(breaker + "failure-threshold", this.circuitBreaker.failureThreshold,
					this.circuitBreaker.failureThreshold >= 1, "at least 1");
			positive(breaker + "cool-down", this.circuitBreaker.coolDown);
			return new RelaySettings(this.relay.workers, this.relay.batchSize, this.relay.leaseDuration,
					this.relay.pollInterval, this.relay.shutdownTimeout, policy, this.circuitBreaker.failureThreshold,
					this.circuitBreaker.coolDown);
		}

		private static void positive(String property, Duration value) {
			check(property, value, value != null && !value.isNegative() && !value.isZero(), "a positive duration such as 1s");
		}

		private static void check(String property, Object value, boolean valid, String rule) {
			if (!valid) {
				throw new InvalidConfigurationPropertyValueException(property, value,
						"The value must be " + rule + ". Set " + property + " accordingly.");
			}
		}

	}

	/**
	 * The relay that publishes committed outbox messages to the broker.
	 */
	public static class Relay {

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

	/**
	 * Backoff between delivery attempts that failed because of the message; after
	 * {@code max-attempts} (default 10) a scope is dead, kept with its last error until redriven.
	 */
	public static class Retry extends RetrySettings {

		public Retry() {
			super(10);
		}

	}

	/**
	 * The breaker that pauses the relay while the broker is unreachable.
	 */
	public static class CircuitBreaker {

		/**
		 * Consecutive broker connection failures that open the breaker and pause claims.
		 */
		private int failureThreshold = 3;

		/**
		 * How long the open breaker waits before probing the broker.
		 */
		private Duration coolDown = Duration.ofSeconds(5);

		public int getFailureThreshold() {
			return this.failureThreshold;
		}

		public void setFailureThreshold(int failureThreshold) {
			this.failureThreshold = failureThreshold;
		}

		public Duration getCoolDown() {
			return this.coolDown;
		}

		public void setCoolDown(Duration coolDown) {
			this.coolDown = coolDown;
		}

	}

}
