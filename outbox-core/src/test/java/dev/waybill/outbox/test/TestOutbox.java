package dev.waybill.outbox.test;

import java.time.Clock;
import java.util.Objects;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.internal.DefaultOutboxAdmin;
import dev.waybill.outbox.internal.DefaultOutboxMessageFactory;
import dev.waybill.outbox.internal.DefaultOutboxPublisher;
import dev.waybill.outbox.internal.JacksonMessageSerializer;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.internal.observation.ObservedOutboxMessageFactory;
import dev.waybill.outbox.spi.ConnectionOutboxWriter;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxMessageFactory;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.OutboxWriter;
import dev.waybill.outbox.spi.Transport;

/**
 * Waybill's outbox wired by hand, without Spring: the JDBC store on the given tables and
 * DataSource, Jackson, and the default publisher with its backlog. For tests that need wiring an
 * application context does not give them: a store on a faulty DataSource, two outboxes on one
 * database, a child process, a backlog set by the test. {@link #relay(Transport)} builds a relay
 * on the same store, wake-up and backlog.
 */
public final class TestOutbox {

	/** The content type of the bodies {@link #serializer()} writes. */
	public static final String CONTENT_TYPE = JacksonMessageSerializer.CONTENT_TYPE;

	private final JdbcOutboxStore store;

	private final RelayWakeUp wakeUp;

	private final OutboxBacklog backlog;

	private final DefaultOutboxPublisher publisher;

	private TestOutbox(Builder builder) {
		this.store = new JdbcOutboxStore(builder.dataSource, builder.tables);
		this.wakeUp = builder.wakeUp;
		this.backlog = new OutboxBacklog();
		OutboxMessageFactory messages = new DefaultOutboxMessageFactory(serializer(), builder.maxMessageBytes,
				Clock.systemUTC(), builder.sourceHost, this.backlog, builder.maxPending, builder.maxHeaderBytes);
		if (builder.observations != null) {
			messages = new ObservedOutboxMessageFactory(messages, builder.observations, null);
		}
		this.publisher = new DefaultOutboxPublisher(messages, this.store, this.wakeUp);
	}

	/**
	 * Returns an outbox with the defaults: its own wake-up, 1 MiB bodies, no pending limit.
	 * @param dataSource where the outbox tables are
	 * @param tables the outbox tables
	 * @return the outbox
	 */
	public static TestOutbox on(DataSource dataSource, OutboxTables tables) {
		return builder(dataSource, tables).build();
	}

	/**
	 * Returns an outbox on the tables of {@code schema}, through its DataSource.
	 * @param schema the schema with Waybill's tables
	 * @return the outbox
	 */
	public static TestOutbox on(TestSchema schema) {
		return on(schema.dataSource(), schema.tables());
	}

	/**
	 * Starts an outbox whose publisher is configured further.
	 * @param dataSource where the outbox tables are
	 * @param tables the outbox tables
	 * @return the builder
	 */
	public static Builder builder(DataSource dataSource, OutboxTables tables) {
		return new Builder(dataSource, tables);
	}

	/**
	 * Returns the serializer Waybill uses by default, Jackson.
	 * @return a new serializer
	 */
	public static MessageSerializer serializer() {
		return new JacksonMessageSerializer();
	}

	/**
	 * Returns the default publisher on the given parts, for an application context that wraps the
	 * publisher in one of its own.
	 * @param messages builds each message
	 * @param writer writes each transaction's messages before it commits
	 * @param wakeUp signalled after each commit that wrote messages
	 * @return the publisher
	 */
	public static OutboxPublisher publisher(OutboxMessageFactory messages, OutboxWriter writer, RelayWakeUp wakeUp) {
		return new DefaultOutboxPublisher(messages, writer, wakeUp);
	}

	/**
	 * Returns the store that both writes the publisher's messages and serves the relay.
	 * @return the JDBC store
	 */
	public OutboxStore store() {
		return this.store;
	}

	/**
	 * Returns the same JDBC store as {@link #store()}, as the writer an inbox writes
	 * redeliveries and faults with.
	 * @return the writer
	 */
	public ConnectionOutboxWriter writer() {
		return this.store;
	}

	/**
	 * Returns the default publisher, writing through {@link #writer()}.
	 * @return the publisher
	 */
	public OutboxPublisher publisher() {
		return this.publisher;
	}

	/**
	 * Returns what ties a handler's publications to its inbound message; the publisher
	 * implements it.
	 * @return the consumer outbox of {@link #publisher()}
	 */
	public ConsumerOutbox consumerOutbox() {
		return this.publisher.consumerOutbox();
	}

	/**
	 * Returns the wake-up the publisher signals after each commit that wrote messages.
	 * @return the wake-up
	 */
	public RelayWakeUp wakeUp() {
		return this.wakeUp;
	}

	/**
	 * Returns an admin on the store, signalling this outbox's wake-up.
	 * @return the admin
	 */
	public OutboxAdmin admin() {
		return new DefaultOutboxAdmin(this.store, this.wakeUp);
	}

	/**
	 * Sets the backlog figures the publisher checks its pending limit against, as a relay does
	 * every poll interval.
	 * @param stats the figures
	 */
	public void reportBacklog(OutboxStats stats) {
		this.backlog.update(stats);
	}

	/**
	 * Starts a relay on this outbox's store, wake-up and backlog.
	 * @param transport the broker
	 * @return the relay's builder
	 */
	public TestRelay.Builder relay(Transport transport) {
		return TestRelay.builder(this.store, transport).wakeUp(this.wakeUp).backlog(this.backlog);
	}

	/**
	 * Lets this outbox's writes be leased to {@code relay} and published right after their commit,
	 * without a claim; call before the relay starts.
	 * @param relay the relay, on the same database
	 */
	public void enableDirectDispatch(TestRelay relay) {
		this.store.setDirectDispatcher(relay.enableDirectDispatch());
	}

	/**
	 * Configures a {@link TestOutbox}.
	 */
	public static final class Builder {

		private final DataSource dataSource;

		private final OutboxTables tables;

		private RelayWakeUp wakeUp = new RelayWakeUp();

		private long maxMessageBytes = 1 << 20;

		private @Nullable String sourceHost = "test-host";

		private long maxPending;

		private LongSupplier maxHeaderBytes = () -> Transport.DEFAULT_MAX_HEADER_BYTES;

		private @Nullable ObservationRegistry observations;

		private Builder(DataSource dataSource, OutboxTables tables) {
			this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
			this.tables = Objects.requireNonNull(tables, "tables must not be null");
		}

		/**
		 * Sets the wake-up signalled after each commit that wrote messages.
		 * @param wakeUp the wake-up, shared with a relay or an inbox
		 * @return this builder
		 */
		public Builder wakeUp(RelayWakeUp wakeUp) {
			this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
			return this;
		}

		/**
		 * Sets the host name recorded with each message; {@code test-host} by default.
		 * @param sourceHost the host name
		 * @return this builder
		 */
		public Builder sourceHost(@Nullable String sourceHost) {
			this.sourceHost = sourceHost;
			return this;
		}

		/**
		 * Sets the largest body accepted; 1 MiB by default.
		 * @param maxMessageBytes the limit, at least 1
		 * @return this builder
		 */
		public Builder maxMessageBytes(long maxMessageBytes) {
			this.maxMessageBytes = maxMessageBytes;
			return this;
		}

		/**
		 * Sets the most pending messages, by the figures of {@link TestOutbox#reportBacklog}, before
		 * publishing fails; 0, the default, for no limit.
		 * @param maxPending the limit
		 * @return this builder
		 */
		public Builder maxPending(long maxPending) {
			this.maxPending = maxPending;
			return this;
		}

		/**
		 * Sets the largest encoded header, typically the transport's.
		 * @param maxHeaderBytes read at each publish
		 * @return this builder
		 */
		public Builder maxHeaderBytes(LongSupplier maxHeaderBytes) {
			this.maxHeaderBytes = Objects.requireNonNull(maxHeaderBytes, "maxHeaderBytes must not be null");
			return this;
		}

		/**
		 * Observes each publish ({@code waybill.publish}) with {@code registry}.
		 * @param registry the registry
		 * @return this builder
		 */
		public Builder observations(ObservationRegistry registry) {
			this.observations = Objects.requireNonNull(registry, "registry must not be null");
			return this;
		}

		/**
		 * Builds the outbox.
		 * @return the outbox
		 */
		public TestOutbox build() {
			return new TestOutbox(this);
		}

	}

}
