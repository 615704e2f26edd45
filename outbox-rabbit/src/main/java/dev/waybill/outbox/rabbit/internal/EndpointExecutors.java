package dev.waybill.outbox.rabbit.internal;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.rabbitmq.client.ConnectionFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.WaybillThreads;

/**
 * The receive endpoint's threads: the consumers' (the client dispatches deliveries on them), and
 * the connector, which runs every attempt to connect and every reaction to a loss, one at a time.
 * Attempts back off from half a second, doubling, up to the connection's recovery interval.
 *
 * @since 0.1
 */
final class EndpointExecutors {

	private static final long FIRST_RETRY_MILLIS = 500;

	private final EndpointStatus status;

	private final ConnectionFactory connectionFactory;

	private volatile @Nullable ScheduledExecutorService connector;

	private @Nullable ExecutorService consumers;

	EndpointExecutors(EndpointStatus status, ConnectionFactory connectionFactory) {
		this.status = status;
		this.connectionFactory = connectionFactory;
	}

	void start(WaybillThreads threads, int consumerThreads) {
		this.consumers = Executors.newFixedThreadPool(Math.max(1, consumerThreads), threads.factory("waybill-consumer-"));
		this.connector = Executors.newSingleThreadScheduledExecutor(threads.named("waybill-consumer-connect"));
	}

	ExecutorService consumers() {
		return Objects.requireNonNull(this.consumers);
	}

	<T> Future<T> submit(Callable<T> task) {
		return Objects.requireNonNull(this.connector).submit(task);
	}

	/** Runs a task on the connector after a delay, unless the endpoint stopped. */
	void schedule(Runnable task, long delayMillis) {
		ScheduledExecutorService connector = this.connector;
		if (connector == null || !this.status.running()) {
			return;
		}
		try {
			connector.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopped
		}
	}

	/** The delay before the next attempt after {@code failedAttempts} failed ones. */
	long backoff(int failedAttempts) {
		long cap = Math.max(1, this.connectionFactory.getNetworkRecoveryInterval());
		long first = Math.min(FIRST_RETRY_MILLIS, cap);
		int doublings = Math.min(Math.max(0, failedAttempts - 1), 20);
		return Math.min(cap, first << doublings);
	}

	void stopConnector() {
		ScheduledExecutorService connector = this.connector;
		if (connector == null) {
			return;
		}
		connector.shutdownNow();
		try {
			// an attempt in progress ends within the connection timeout, and closes what it opened
			connector.awaitTermination(this.connectionFactory.getConnectionTimeout() + 5000L, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.connector = null;
	}

	void stopConsumers(long deadlineNanos) {
		ExecutorService consumers = this.consumers;
		if (consumers == null) {
			return;
		}
		consumers.shutdown();
		try {
			consumers.awaitTermination(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.consumers = null;
	}

}
