package dev.waybill.inbox.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.RetryPolicy;

/**
 * The settings of one receive endpoint under {@code waybill.inbox.endpoints.<queue>.*}; every
 * unset one falls back to {@code waybill.inbox.*}, and an attribute of the handlers'
 * {@link dev.waybill.inbox.Consumer @Consumer} wins over it. Queue names with a dot go in brackets:
 * {@code waybill.inbox.endpoints[orders.eu].concurrency}.
 *
 * @since 0.1
 */
public class EndpointProperties {

	/**
	 * Messages of this queue handled at once.
	 */
	private @Nullable Integer concurrency;

	/**
	 * Unacknowledged messages the broker sends ahead to each handling thread.
	 */
	private @Nullable Integer prefetch;

	/**
	 * Exception classes never retried: the message goes to the error queue at once.
	 */
	private List<Class<?>> neverRetry = new ArrayList<>();

	/**
	 * Exception classes ignored: the message is acknowledged and recorded processed with a note.
	 */
	private List<Class<?>> ignore = new ArrayList<>();

	/**
	 * Extra bindings of the queue, besides the exchanges of its handlers' message types.
	 */
	private List<Binding> bindings = new ArrayList<>();

	private @Nullable Retry retry;

	/**
	 * Broker queues this queue's messages are spread over by ordering key, each consumed by one
	 * instance at a time, shared by the service's instances. 1 is one queue.
	 */
	private @Nullable Integer partitions;

	public @Nullable Integer getPartitions() {
		return this.partitions;
	}

	public void setPartitions(@Nullable Integer partitions) {
		this.partitions = partitions;
	}

	public @Nullable Integer getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(@Nullable Integer concurrency) {
		this.concurrency = concurrency;
	}

	public @Nullable Integer getPrefetch() {
		return this.prefetch;
	}

	public void setPrefetch(@Nullable Integer prefetch) {
		this.prefetch = prefetch;
	}

	public List<Class<?>> getNeverRetry() {
		return this.neverRetry;
	}

	public void setNeverRetry(List<Class<?>> neverRetry) {
		this.neverRetry = neverRetry;
	}

	public List<Class<?>> getIgnore() {
		return this.ignore;
	}

	public void setIgnore(List<Class<?>> ignore) {
		this.ignore = ignore;
	}

	public List<Binding> getBindings() {
		return this.bindings;
	}

	public void setBindings(List<Binding> bindings) {
		this.bindings = bindings;
	}

	public @Nullable Retry getRetry() {
		return this.retry;
	}

	public void setRetry(@Nullable Retry retry) {
		this.retry = retry;
	}

	/**
	 * An extra binding of the queue.
	 */
	public static class Binding {

		/**
		 * The exchange to bind to.
		 */
		private @Nullable String exchange;

		/**
		 * The routing key or pattern; empty for fanout and headers exchanges.
		 */
		private String routingKey = "";

		public @Nullable String getExchange() {
			return this.exchange;
		}

		public void setExchange(@Nullable String exchange) {
			this.exchange = exchange;
		}

		public String getRoutingKey() {
			return this.routingKey;
		}

		public void setRoutingKey(String routingKey) {
			this.routingKey = routingKey;
		}

	}

	/**
	 * The endpoint's retry policy; every unset value is {@code waybill.inbox.retry.*}'s.
	 */
	public static class Retry {

		/**
		 * How the delay between redeliveries grows.
		 */
		private RetryPolicy.@Nullable Strategy strategy;

		/**
		 * The first delay between redeliveries.
		 */
		private @Nullable Duration interval;

		/**
		 * The growth factor of an exponential strategy.
		 */
		private @Nullable Double rate;

		/**
		 * The longest delay between redeliveries.
		 */
		private @Nullable Duration maxDelay;

		/**
		 * Failed deliveries before the message goes to the error queue.
		 */
		private @Nullable Integer maxAttempts;

		/**
		 * The random share of each delay.
		 */
		private @Nullable Double jitter;

		/**
		 * In-process retries before a redelivery is scheduled.
		 */
		private @Nullable Integer immediate;

		public RetryPolicy.@Nullable Strategy getStrategy() {
			return this.strategy;
		}

		public void setStrategy(RetryPolicy.@Nullable Strategy strategy) {
			this.strategy = strategy;
		}

		public @Nullable Duration getInterval() {
			return this.interval;
		}

		public void setInterval(@Nullable Duration interval) {
			this.interval = interval;
		}

		public @Nullable Double getRate() {
			return this.rate;
		}

		public void setRate(@Nullable Double rate) {
			this.rate = rate;
		}

		public @Nullable Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(@Nullable Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public @Nullable Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public @Nullable Double getJitter() {
			return this.jitter;
		}

		public void setJitter(@Nullable Double jitter) {
			this.jitter = jitter;
		}

		public @Nullable Integer getImmediate() {
			return this.immediate;
		}

		public void setImmediate(@Nullable Integer immediate) {
			this.immediate = immediate;
		}

	}

}
