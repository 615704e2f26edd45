package dev.waybill.benchmarks;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.HostNames;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.autoconfigure.WaybillProperties;
import dev.waybill.outbox.internal.DefaultOutboxPublisher;
import dev.waybill.outbox.internal.JacksonMessageSerializer;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.autoconfigure.RelaySettingsMapper;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.internal.observation.RelayObservation;
import dev.waybill.outbox.internal.relay.PostgresCommitNotifier;
import dev.waybill.outbox.internal.relay.PostgresNotificationListener;
import dev.waybill.outbox.internal.relay.Relay;
import dev.waybill.outbox.internal.relay.RelaySettings;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitProperties;
import dev.waybill.outbox.rabbit.internal.RabbitTransport;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestSchema;

/**
 * Waybill wired by hand on one schema, the way its Spring Boot auto-configuration wires it, with
 * the default {@code waybill.*} and {@code waybill.rabbit.*} values (read from the properties
 * classes, so the benchmarks follow the defaults when they change): the JDBC store, the publisher
 * (what {@code @Outbox} methods call), a transaction manager, and on demand a relay with its
 * RabbitMQ transport and PostgreSQL {@code LISTEN} wake-up. Built by hand rather than in an
 * application context so each timed window starts and ends exactly where the benchmark says.
 */
final class OutboxWiring {

	private static final WaybillProperties DEFAULTS = new WaybillProperties();

	private final TestSchema schema;

	private final JdbcOutboxStore store;

	private final PostgresCommitNotifier notifier;

	private final RelayWakeUp wakeUp;

	private final OutboxBacklog backlog = new OutboxBacklog();

	private final DefaultOutboxPublisher publisher;

	private final DataSourceTransactionManager transactionManager;

	OutboxWiring(TestSchema schema) {
		this.schema = schema;
		this.store = new JdbcOutboxStore(schema.dataSource(), schema.tables());
		// As the auto-configuration wires it: each commit also notifies other instances' relays.
		this.notifier = new PostgresCommitNotifier(schema.dataSource(), schema.tables().notifyChannel());
		this.wakeUp = new RelayWakeUp(this.notifier);
		this.publisher = new DefaultOutboxPublisher(this.store, new JacksonMessageSerializer(), this.wakeUp,
				DEFAULTS.getOutbox().maxMessageBytesChecked(), Clock.systemUTC(), HostNames.local(), this.backlog,
				DEFAULTS.getOutbox().maxPendingChecked());
		this.transactionManager = new DataSourceTransactionManager(schema.dataSource());
	}

	PostgresCommitNotifier notifier() {
		return this.notifier;
	}

	TestSchema schema() {
		return this.schema;
	}

	JdbcOutboxStore store() {
		return this.store;
	}

	DefaultOutboxPublisher publisher() {
		return this.publisher;
	}

	RelayWakeUp wakeUp() {
		return this.wakeUp;
	}

	DataSourceTransactionManager transactionManager() {
		return this.transactionManager;
	}

	TransactionTemplate transactions() {
		return new TransactionTemplate(this.transactionManager);
	}

	JdbcTemplate jdbc() {
		return new JdbcTemplate(this.schema.dataSource());
	}

	/**
	 * Returns the relay settings of a default configuration.
	 * @return the settings
	 */
	static RelaySettings relaySettings() {
		return RelaySettingsMapper.toRelaySettings(DEFAULTS.getOutbox());
	}

	/**
	 * Builds a RabbitMQ transport with the default {@code waybill.rabbit.*} values.
	 * @param rabbit the broker
	 * @return the transport; the caller closes it
	 */
	static RabbitTransport transport(TestRabbit rabbit) {
		WaybillRabbitProperties defaults = new WaybillRabbitProperties();
		return rabbit.transport()
			.maxOutstandingConfirms(defaults.getMaxOutstandingConfirms())
			.confirmTimeout(defaults.getConfirmTimeout())
			.exchangeType(defaults.getExchangeType())
			.build();
	}

	/**
	 * The default window of unconfirmed messages per relay channel.
	 * @return {@code waybill.rabbit.max-outstanding-confirms}'s default
	 */
	static int confirmWindow() {
		return new WaybillRabbitProperties().getMaxOutstandingConfirms();
	}

	/**
	 * Starts a relay on this schema; {@link RunningRelay#close()} stops it and its transport.
	 * @param rabbit the broker
	 * @param onConfirmed told of every confirmed message with its confirm time, on the settling thread
	 * @return the running relay
	 */
	RunningRelay startRelay(TestRabbit rabbit, BiConsumer<OutboxMessage, Instant> onConfirmed) {
		return startRelayOfScopes(rabbit, (scope, confirmedAt) -> {
			for (OutboxMessage message : scope.messages()) {
				onConfirmed.accept(message, confirmedAt);
			}
		});
	}

	/**
	 * Starts a relay like {@link #startRelay(TestRabbit, BiConsumer)}, telling of each confirmed scope.
	 * @param rabbit the broker
	 * @param onConfirmed told of every confirmed scope with its confirm time, on the settling thread
	 * @return the running relay
	 */
	RunningRelay startRelayOfScopes(TestRabbit rabbit, BiConsumer<ClaimedScope, Instant> onConfirmed) {
		return startRelayOfScopes(rabbit, onConfirmed, RelayObservation.NONE);
	}

	/**
	 * Starts a relay like {@link #startRelayOfScopes(TestRabbit, BiConsumer)} that observes its publishes.
	 * @param rabbit the broker
	 * @param onConfirmed told of every confirmed scope with its confirm time, on the settling thread
	 * @param observation how the relay observes each publish
	 * @return the running relay
	 */
	RunningRelay startRelayOfScopes(TestRabbit rabbit, BiConsumer<ClaimedScope, Instant> onConfirmed,
			RelayObservation observation) {
		return startRelayOfScopes(rabbit, onConfirmed, observation, this.store);
	}

	/**
	 * Starts a relay like {@link #startRelayOfScopes(TestRabbit, BiConsumer, RelayObservation)} on
	 * the given view of this schema's store.
	 * @param store the store the relay uses, e.g. one that times its calls
	 */
	RunningRelay startRelayOfScopes(TestRabbit rabbit, BiConsumer<ClaimedScope, Instant> onConfirmed,
			RelayObservation observation, OutboxStore store) {
		return startRelayOfScopes(rabbit, onConfirmed, observation, store, UnaryOperator.identity());
	}

	/**
	 * Starts a relay like {@link #startRelayOfScopes(TestRabbit, BiConsumer, RelayObservation, OutboxStore)}
	 * on a view of its RabbitMQ transport.
	 * @param transportView wraps the transport the relay uses, e.g. to time its calls; the relay
	 * closes what it returns
	 */
	RunningRelay startRelayOfScopes(TestRabbit rabbit, BiConsumer<ClaimedScope, Instant> onConfirmed,
			RelayObservation observation, OutboxStore store, UnaryOperator<Transport> transportView) {
		Transport transport = transportView.apply(transport(rabbit));
		AtomicLong published = new AtomicLong();
		RelayListener listener = new RelayListener() {
			@Override
			public void published(ClaimedScope scope, Instant confirmedAt) {
				onConfirmed.accept(scope, confirmedAt);
				published.addAndGet(scope.messages().size());
			}
		};
		PostgresNotificationListener notifications = new PostgresNotificationListener(this.schema.dataSource(),
				this.schema.tables().notifyChannel(), this.wakeUp, this.notifier.senderId());
		Relay relay = new Relay(store, transport, this.wakeUp, relaySettings(), listener, this.backlog);
		relay.setObservation(observation);
		// As the auto-configuration does (waybill.outbox.relay.direct-dispatch, on by default):
		// scopes written through this wiring's store go to this relay right after their commit.
		boolean direct = !"false".equals(System.getProperty("waybill.bench.direct-dispatch"));
		if (direct) {
			this.store.setDirectDispatcher(relay.enableDirectDispatch());
		}
		notifications.start();
		relay.start();
		return new RunningRelay(relay, notifications, transport, published, direct ? this.store : null);
	}

	/**
	 * A started relay and what it needs.
	 */
	static final class RunningRelay implements AutoCloseable {

		private static final long POLL_MILLIS = 2;

		private final Relay relay;

		private final PostgresNotificationListener notifications;

		private final Transport transport;

		private final AtomicLong published;

		private final JdbcOutboxStore directWriter;

		RunningRelay(Relay relay, PostgresNotificationListener notifications, Transport transport,
				AtomicLong published, JdbcOutboxStore directWriter) {
			this.directWriter = directWriter;
			this.relay = relay;
			this.notifications = notifications;
			this.transport = transport;
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

		@Override
		public void close() {
			try {
				if (this.directWriter != null) {
					this.directWriter.setDirectDispatcher(null);
				}
				this.relay.stop();
				this.notifications.stop();
			}
			finally {
				this.transport.close();
			}
		}

	}

}
