package dev.waybill.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import javax.sql.DataSource;

import org.springframework.context.Lifecycle;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.autoconfigure.RelayProperties;
import dev.waybill.outbox.autoconfigure.WaybillProperties;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitProperties;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.test.TestSchema;

/**
 * Waybill on one schema as its Spring Boot auto-configuration builds it (a {@link WaybillApp}),
 * with the default {@code waybill.*} and {@code waybill.rabbit.*} values unless the benchmark sets
 * one: the publisher (what {@code @Outbox} methods call) and its transactions, and, with RabbitMQ,
 * the relay with its transport and PostgreSQL {@code LISTEN} wake-up, and the inbox's receive
 * endpoint when the application registers consumers. Both are paused as soon as the application has
 * started: a benchmark starts them where its timed window begins ({@link #startRelay},
 * {@link #startConsuming}) and stops them where it ends.
 */
final class OutboxWiring implements AutoCloseable {

	private final TestSchema schema;

	private final RelayEvents events;

	private final WaybillApp app;

	/**
	 * Starts the application a builder describes on {@code schema}, with a listener for the relay.
	 * @param schema the schema the application works on
	 * @param app the application, {@link WaybillApp#on} that schema
	 */
	OutboxWiring(TestSchema schema, WaybillApp.Builder app) {
		this.schema = schema;
		this.events = new RelayEvents();
		this.app = app.bean(RelayListener.class, () -> this.events).start();
		if (this.app.hasRelay()) {
			this.app.relay().stop();
		}
		if (this.app.hasReceiveEndpoint()) {
			this.app.receiveEndpoint().stop();
		}
	}

	TestSchema schema() {
		return this.schema;
	}

	WaybillApp app() {
		return this.app;
	}

	OutboxPublisher publisher() {
		return this.app.publisher();
	}

	TransactionTemplate transactions() {
		return this.app.transactions();
	}

	/**
	 * Returns SQL on the application's DataSource, so that it joins the application's transactions.
	 * @return a template on that DataSource
	 */
	JdbcTemplate jdbc() {
		return new JdbcTemplate(this.app.bean(DataSource.class));
	}

	/**
	 * Returns the relay settings the application runs with.
	 * @return {@code waybill.outbox.relay.*}
	 */
	RelayProperties relaySettings() {
		return this.app.bean(WaybillProperties.class).getOutbox().getRelay();
	}

	/**
	 * Returns the relay settings of a default configuration.
	 * @return {@code waybill.outbox.relay.*}'s defaults
	 */
	static RelayProperties defaultRelaySettings() {
		return new WaybillProperties().getOutbox().getRelay();
	}

	/**
	 * Returns the store the relay works with, to time its statements outside the relay.
	 * @return the application's {@link OutboxStore}
	 */
	OutboxStore store() {
		return this.app.bean(OutboxStore.class);
	}

	/**
	 * The default window of unconfirmed messages per relay channel.
	 * @return {@code waybill.rabbit.max-outstanding-confirms}'s default
	 */
	static int confirmWindow() {
		return new WaybillRabbitProperties().getMaxOutstandingConfirms();
	}

	/**
	 * Resumes the relay; {@link RunningRelay#close()} pauses it again.
	 * @param onConfirmed told of every confirmed message with its confirm time, on the settling thread
	 * @return the running relay
	 */
	RunningRelay startRelay(BiConsumer<OutboxMessage, Instant> onConfirmed) {
		return startRelayOfScopes((scope, confirmedAt) -> {
			for (OutboxMessage message : scope.messages()) {
				onConfirmed.accept(message, confirmedAt);
			}
		});
	}

	/**
	 * Resumes the relay like {@link #startRelay(BiConsumer)}, telling of each confirmed scope.
	 * @param onConfirmed told of every confirmed scope with its confirm time, on the settling thread
	 * @return the running relay
	 */
	RunningRelay startRelayOfScopes(BiConsumer<ClaimedScope, Instant> onConfirmed) {
		AtomicLong published = new AtomicLong();
		this.events.tell((scope, confirmedAt) -> {
			onConfirmed.accept(scope, confirmedAt);
			published.addAndGet(scope.messages().size());
		});
		this.app.relay().start();
		return new RunningRelay(this, published);
	}

	/**
	 * Resumes the receive endpoint, which consumes the registered queues until the returned
	 * handle is closed.
	 * @return pauses the endpoint again when closed
	 */
	Consuming startConsuming() {
		Lifecycle endpoint = this.app.receiveEndpoint();
		endpoint.start();
		return endpoint::stop;
	}

	@Override
	public void close() {
		this.app.close();
	}

	/**
	 * The receive endpoint, resumed: closing it pauses the endpoint.
	 */
	@FunctionalInterface
	interface Consuming extends AutoCloseable {

		@Override
		void close();

	}

	/**
	 * The relay's listener bean: tells the running relay's callback what it published.
	 */
	private static final class RelayEvents implements RelayListener {

		private static final BiConsumer<ClaimedScope, Instant> NONE = (scope, confirmedAt) -> {
		};

		private volatile BiConsumer<ClaimedScope, Instant> callback = NONE;

		void tell(BiConsumer<ClaimedScope, Instant> callback) {
			this.callback = callback;
		}

		@Override
		public void published(ClaimedScope scope, Instant confirmedAt) {
			this.callback.accept(scope, confirmedAt);
		}

	}

	/**
	 * The relay, resumed, and what it published since.
	 */
	static final class RunningRelay implements AutoCloseable {

		private static final long POLL_MILLIS = 2;

		private final OutboxWiring wiring;

		private final AtomicLong published;

		RunningRelay(OutboxWiring wiring, AtomicLong published) {
			this.wiring = wiring;
			this.published = published;
		}

		/**
		 * Returns the messages confirmed and marked published so far.
		 * @return the count
		 */
		long published() {
			return this.published.get();
		}

		/**
		 * Waits until at least {@code messages} are confirmed and marked published.
		 * @param messages how many
		 * @param timeout the longest to wait
		 * @throws IllegalStateException when they are not in time
		 */
		void awaitPublished(long messages, Duration timeout) throws InterruptedException {
			long deadline = System.nanoTime() + timeout.toNanos();
			while (this.published.get() < messages) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("The relay published " + this.published.get() + " of " + messages
							+ " messages within " + timeout);
				}
				Thread.sleep(POLL_MILLIS);
			}
		}

		/** Pauses the relay; the application stays up for the next run. */
		@Override
		public void close() {
			this.wiring.app.relay().stop();
			this.wiring.events.tell(RelayEvents.NONE);
		}

	}

}
