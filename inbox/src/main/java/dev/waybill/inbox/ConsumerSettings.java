package dev.waybill.inbox;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * How a {@link ConsumerRegistration} consumes its queue, apart from what it handles: the settings
 * its {@code with*} methods change, each checked here.
 *
 * @param concurrency messages of the queue handled at once, at least 1
 * @param prefetch unacknowledged messages sent ahead to each handling thread, at least 1
 * @param queueArguments the arguments the queue is declared with, unmodifiable
 * @param partitionByOrderingKey whether deliveries go to the handling threads by ordering key
 * @param retry the endpoint's own retry policy, or {@literal null} for the inbox processor's
 * @param neverRetry exceptions never retried, unmodifiable
 * @param ignore exceptions ignored, unmodifiable
 * @param bindings extra bindings of the queue, unmodifiable
 */
record ConsumerSettings(int concurrency, int prefetch, Map<String, Object> queueArguments,
		boolean partitionByOrderingKey, @Nullable EndpointRetry retry, List<Class<? extends Throwable>> neverRetry,
		List<Class<? extends Throwable>> ignore, List<EndpointBinding> bindings) {

	static final ConsumerSettings DEFAULTS = new ConsumerSettings(ConsumerRegistration.DEFAULT_CONCURRENCY,
			ConsumerRegistration.DEFAULT_PREFETCH, Map.of(), true, null, List.of(), List.of(), List.of());

	ConsumerSettings withConcurrency(int concurrency) {
		requireAtLeastOne("concurrency", concurrency);
		return new ConsumerSettings(concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, this.neverRetry, this.ignore, this.bindings);
	}

	ConsumerSettings withPrefetch(int prefetch) {
		requireAtLeastOne("prefetch", prefetch);
		return new ConsumerSettings(this.concurrency, prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, this.neverRetry, this.ignore, this.bindings);
	}

	ConsumerSettings withQueueArguments(Map<String, ?> queueArguments) {
		return new ConsumerSettings(this.concurrency, this.prefetch,
				Collections.unmodifiableMap(new LinkedHashMap<>(queueArguments)), this.partitionByOrderingKey, this.retry,
				this.neverRetry, this.ignore, this.bindings);
	}

	ConsumerSettings withPartitionByOrderingKey(boolean partitionByOrderingKey) {
		return new ConsumerSettings(this.concurrency, this.prefetch, this.queueArguments, partitionByOrderingKey,
				this.retry, this.neverRetry, this.ignore, this.bindings);
	}

	ConsumerSettings withRetry(@Nullable EndpointRetry retry) {
		return new ConsumerSettings(this.concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				retry, this.neverRetry, this.ignore, this.bindings);
	}

	ConsumerSettings withNeverRetry(List<Class<? extends Throwable>> neverRetry) {
		return new ConsumerSettings(this.concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, List.copyOf(neverRetry), this.ignore, this.bindings);
	}

	ConsumerSettings withIgnore(List<Class<? extends Throwable>> ignore) {
		return new ConsumerSettings(this.concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, this.neverRetry, List.copyOf(ignore), this.bindings);
	}

	ConsumerSettings withBindings(List<EndpointBinding> bindings) {
		return new ConsumerSettings(this.concurrency, this.prefetch, this.queueArguments, this.partitionByOrderingKey,
				this.retry, this.neverRetry, this.ignore, List.copyOf(bindings));
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
				+ this.partitionByOrderingKey;
	}

	private static void requireAtLeastOne(String name, int value) {
		if (value < 1) {
			throw new IllegalArgumentException(name + " must be at least 1, was " + value);
		}
	}

}
