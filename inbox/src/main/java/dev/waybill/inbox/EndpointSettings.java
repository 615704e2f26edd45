package dev.waybill.inbox;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * How a {@link ReceiveEndpoint} consumes its queue, apart from what its handlers take: the settings
 * its {@code with*} methods change, each checked here. Held once by the endpoint; each handler's
 * {@link ConsumerRegistration} refers to the same instance.
 *
 * @param concurrency messages of the queue handled at once, at least 1
 * @param prefetch unacknowledged messages sent ahead to each handling thread, at least 1
 * @param queueArguments the arguments the queue is declared with, unmodifiable
 * @param partitionByOrderingKey whether deliveries go to the handling threads by ordering key
 * @param retry the endpoint's own retry policy, or {@literal null} for the inbox processor's
 * @param neverRetry exceptions never retried, unmodifiable
 * @param ignore exceptions ignored, unmodifiable
 * @param bindings extra bindings of the queue, unmodifiable
 * @param partitions the broker queues the endpoint's messages are spread over by ordering key, at
 * least 1
 */
record EndpointSettings(int concurrency, int prefetch, Map<String, Object> queueArguments,
		boolean partitionByOrderingKey, @Nullable EndpointRetry retry, List<Class<? extends Throwable>> neverRetry,
		List<Class<? extends Throwable>> ignore, List<EndpointBinding> bindings, int partitions) {

	static final EndpointSettings DEFAULTS = new EndpointSettings(ReceiveEndpoint.DEFAULT_CONCURRENCY,
			ReceiveEndpoint.DEFAULT_PREFETCH, Map.of(), true, null, List.of(), List.of(), List.of(), 1);

	EndpointSettings withConcurrency(int concurrency) {
		requireAtLeastOne("concurrency", concurrency);
		return new EndpointSettings(concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, this.neverRetry, this.ignore, this.bindings, this.partitions);
	}

	EndpointSettings withPrefetch(int prefetch) {
		requireAtLeastOne("prefetch", prefetch);
		return new EndpointSettings(this.concurrency, prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, this.neverRetry, this.ignore, this.bindings, this.partitions);
	}

	EndpointSettings withQueueArguments(Map<String, ?> queueArguments) {
		return new EndpointSettings(this.concurrency, this.prefetch,
				Collections.unmodifiableMap(new LinkedHashMap<>(queueArguments)), this.partitionByOrderingKey, this.retry,
				this.neverRetry, this.ignore, this.bindings, this.partitions);
	}

	EndpointSettings withPartitionByOrderingKey(boolean partitionByOrderingKey) {
		return new EndpointSettings(this.concurrency, this.prefetch, this.queueArguments, partitionByOrderingKey,
				this.retry, this.neverRetry, this.ignore, this.bindings, this.partitions);
	}

	EndpointSettings withRetry(@Nullable EndpointRetry retry) {
		return new EndpointSettings(this.concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				retry, this.neverRetry, this.ignore, this.bindings, this.partitions);
	}

	EndpointSettings withNeverRetry(List<Class<? extends Throwable>> neverRetry) {
		return new EndpointSettings(this.concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, List.copyOf(neverRetry), this.ignore, this.bindings, this.partitions);
	}

	EndpointSettings withIgnore(List<Class<? extends Throwable>> ignore) {
		return new EndpointSettings(this.concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, this.neverRetry, List.copyOf(ignore), this.bindings, this.partitions);
	}

	EndpointSettings withBindings(List<EndpointBinding> bindings) {
		return new EndpointSettings(this.concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, this.neverRetry, this.ignore, List.copyOf(bindings), this.partitions);
	}

	EndpointSettings withPartitions(int partitions) {
		requireAtLeastOne("partitions", partitions);
		return new EndpointSettings(this.concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, this.neverRetry, this.ignore, this.bindings, partitions);
	}

	/**
	 * Describes the settings as the registration's {@code toString} lists them: the unset optional
	 * ones left out.
	 * @return the description, starting with {@code ", concurrency="}
	 */
	String describe() {
		return ", concurrency=" + this.concurrency + ", prefetch=" + this.prefetch + ", queueArguments="
				+ this.queueArguments + ((this.retry != null) ? ", retry=" + this.retry : "")
				+ (this.neverRetry.isEmpty() ? "" : ", neverRetry=" + this.neverRetry)
				+ (this.ignore.isEmpty() ? "" : ", ignore=" + this.ignore)
				+ (this.bindings.isEmpty() ? "" : ", bindings=" + this.bindings) + ", partitionByOrderingKey="
				+ this.partitionByOrderingKey + ((this.partitions > 1) ? ", partitions=" + this.partitions : "");
	}

	private static void requireAtLeastOne(String name, int value) {
		if (value < 1) {
			throw new IllegalArgumentException(name + " must be at least 1, was " + value);
		}
	}

}
