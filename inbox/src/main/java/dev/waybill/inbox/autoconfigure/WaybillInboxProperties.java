package dev.waybill.inbox.autoconfigure;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.autoconfigure.RetrySettings;

/**
 * Configuration of Waybill's inbox under {@code waybill.inbox.*}. Checked as soon as it is bound,
 * so a bad value fails start-up naming the property.
 *
 * @since 0.1
 */
@ConfigurationProperties(WaybillInboxProperties.PREFIX)
public class WaybillInboxProperties implements InitializingBean {

	/** The prefix of the inbox properties. */
	public static final String PREFIX = "waybill.inbox";

	/** The property other modules read to keep processed inbox rows long enough (retention). */
	public static final String DUPLICATE_DETECTION_WINDOW_PROPERTY = PREFIX + ".duplicate-detection-window";

	private static final Pattern INTEGER = Pattern.compile("-?[0-9]{1,18}");

	/**
	 * Messages of one queue handled at once, unless the handler's @Consumer sets it.
	 */
	private int concurrency = 4;

	/**
	 * Unacknowledged messages the broker sends ahead to each handling thread, unless the handler's
	 * @Consumer sets it.
	 */
	private int prefetch = 32;

	/**
	 * Arguments every consumer queue is declared with, e.g. x-queue-type: quorum. Empty by default,
	 * which every AMQP 0-9-1 broker accepts. Integers and true/false are sent as AMQP numbers and
	 * booleans, anything else as text.
	 */
	private Map<String, String> queueArguments = new LinkedHashMap<>();

	/**
	 * Whether each consumer hands its deliveries to its handling threads by the hash of their
	 * ordering key (waybill-ordering-key header), so one key's deliveries are handled one at a
	 * time and in order. Off: each handling thread consumes on its own channel, unordered.
	 */
	private boolean partitionByOrderingKey = true;

	/**
	 * How long processed inbox rows must be kept so that a redelivered duplicate is still
	 * recognised. Retention refuses a shorter completed-after.
	 */
	private Duration duplicateDetectionWindow = Duration.ofMinutes(30);

	/**
	 * How long stopping waits for the handlers to finish and acknowledge the deliveries they hold
	 * (after the consumers stopped taking new ones) before closing the connection.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(30);

	/**
	 * How long an endpoint partitioned by ordering key holds back a keyed message whose predecessor
	 * it has not received (the broker refused the predecessor and the relay publishes it again),
	 * before handling it without, with a warning.
	 */
	private Duration predecessorWait = Duration.ofSeconds(30);

	private final Retry retry = new Retry();

	private final Faults faults = new Faults();

	private final Batch batch = new Batch();

	/**
	 * Settings of single receive endpoints by queue name: concurrency, prefetch, retry, never-retry,
	 * ignore, extra bindings and partitions; each unset one is the value above.
	 */
	private Map<String, EndpointProperties> endpoints = new LinkedHashMap<>();

	public Map<String, EndpointProperties> getEndpoints() {
		return this.endpoints;
	}

	public void setEndpoints(Map<String, EndpointProperties> endpoints) {
		this.endpoints = endpoints;
	}

	public int getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(int concurrency) {
		this.concurrency = concurrency;
	}

	public int getPrefetch() {
		return this.prefetch;
	}

	public void setPrefetch(int prefetch) {
		this.prefetch = prefetch;
	}

	public boolean isPartitionByOrderingKey() {
		return this.partitionByOrderingKey;
	}

	public void setPartitionByOrderingKey(boolean partitionByOrderingKey) {
		this.partitionByOrderingKey = partitionByOrderingKey;
	}

	public Map<String, String> getQueueArguments() {
		return this.queueArguments;
	}

	public void setQueueArguments(Map<String, String> queueArguments) {
		this.queueArguments = queueArguments;
	}

	public Duration getDuplicateDetectionWindow() {
		return this.duplicateDetectionWindow;
	}

	public void setDuplicateDetectionWindow(Duration duplicateDetectionWindow) {
		this.duplicateDetectionWindow = duplicateDetectionWindow;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public Duration getPredecessorWait() {
		return this.predecessorWait;
	}

	public void setPredecessorWait(Duration predecessorWait) {
		this.predecessorWait = predecessorWait;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Faults getFaults() {
		return this.faults;
	}

	public Batch getBatch() {
		return this.batch;
	}

	@Override
	public void afterPropertiesSet() {
		validate();
	}

	/**
	 * Checks every property.
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property, its
	 * value, the rule and the fix
	 */
	public void validate() {
		check("concurrency", this.concurrency, this.concurrency >= 1, "at least 1");
		positive("shutdown-timeout", this.shutdownTimeout);
		positive("predecessor-wait", this.predecessorWait);
		check("prefetch", this.prefetch, this.prefetch >= 1, "at least 1 (0, unlimited, would let the broker "
				+ "flood one consumer)");
		positive("duplicate-detection-window", this.duplicateDetectionWindow);
		check("batch.max-size", this.batch.maxSize, this.batch.maxSize >= 1,
				"at least 1 (1 handles each delivery in a transaction of its own)");
		check("batch.linger", this.batch.linger, this.batch.linger != null && !this.batch.linger.isNegative()
				&& this.batch.linger.compareTo(Duration.ofSeconds(1)) <= 0, "between 0 and 1s, e.g. 1ms");
		check("retry.immediate", this.retry.immediate, this.retry.immediate >= 0, "at least 0 (0 for no in-process retry)");
		toRetryPolicy();
	}

	/**
	 * Returns the backoff between redeliveries of a failed message and the attempts before it goes
	 * to the error queue.
	 * @return the policy
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
	 */
	public RetryPolicy toRetryPolicy() {
		return this.retry.toRetryPolicy(PREFIX + ".retry");
	}

	/**
	 * Returns the queue arguments as AMQP values: integers as {@link Long}, {@code true} and
	 * {@code false} as {@link Boolean}, anything else as the text.
	 * @return an unmodifiable map in the configured order
	 */
	public Map<String, Object> queueArgumentValues() {
		Map<String, Object> values = new LinkedHashMap<>();
		this.queueArguments.forEach((name, value) -> values.put(name, argumentValue(value)));
		return Collections.unmodifiableMap(values);
	}

	private static Object argumentValue(String value) {
		String trimmed = value.trim();
		if (INTEGER.matcher(trimmed).matches()) {
			return Long.valueOf(trimmed);
		}
		if (trimmed.equalsIgnoreCase("true") || trimmed.equalsIgnoreCase("false")) {
			return Boolean.valueOf(trimmed);
		}
		return value;
	}

	private static void positive(String property, @Nullable Duration value) {
		check(property, value, value != null && !value.isNegative() && !value.isZero(),
				"a positive duration such as 30s");
	}

	private static void check(String property, @Nullable Object value, boolean valid, String rule) {
		if (!valid) {
			String name = PREFIX + "." + property;
			throw new InvalidConfigurationPropertyValueException(name, value,
					"The value must be " + rule + ". Set " + name + " accordingly.");
		}
	}

	/**
	 * Retries of a message whose handler failed: the shared backoff settings, where after
	 * {@code max-attempts} (default 5) failed deliveries the message goes to the consumer's error
	 * queue, plus in-process {@code immediate} retries.
	 */
	public static class Retry extends RetrySettings {

		/**
		 * In-process retries of a failed handler, each in a fresh transaction, before a redelivery
		 * is scheduled. For failures that pass in milliseconds (a lost optimistic lock).
		 */
		private int immediate = 0;

		public Retry() {
			super(5);
		}

		public int getImmediate() {
			return this.immediate;
		}

		public void setImmediate(int immediate) {
			this.immediate = immediate;
		}

	}

	/**
	 * Fault events: what a consumer publishes when it gives a message up.
	 */
	public static class Faults {

		/**
		 * Whether a message whose handler failed every attempt is also published as a Fault event
		 * (dev.waybill.inbox.Fault) to the exchange 'fault:<message type>', through the consumer
		 * outbox in the transaction that records the fault. Off by default: Waybill publishes with
		 * 'mandatory', so a fault event nobody consumes would be unroutable and end as a dead outbox
		 * scope; turn it on in the services whose faults another service consumes.
		 */
		private boolean publish = false;

		public boolean isPublish() {
			return this.publish;
		}

		public void setPublish(boolean publish) {
			this.publish = publish;
		}

	}

	/**
	 * Batching: a consuming thread handles the deliveries it holds (received ahead, within the
	 * prefetch) in one database transaction, commits once and then acknowledges them. When a
	 * handler fails the transaction rolls back; the deliveries before it run again and it is
	 * handled alone.
	 */
	public static class Batch {

		/**
		 * The most deliveries of one consuming thread handled in one transaction (at most the
		 * prefetch). 1 handles each delivery in a transaction of its own.
		 */
		private int maxSize = 16;

		/**
		 * How long a consuming thread that found several deliveries waiting waits for more to fill
		 * its batch. A lone delivery is handled at once, without waiting.
		 */
		private Duration linger = Duration.ofMillis(1);

		public int getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(int maxSize) {
			this.maxSize = maxSize;
		}

		public Duration getLinger() {
			return this.linger;
		}

		public void setLinger(Duration linger) {
			this.linger = linger;
		}

	}

}
