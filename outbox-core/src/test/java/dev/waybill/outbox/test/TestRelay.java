package dev.waybill.outbox.test;

import java.time.Duration;
import java.util.Objects;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.context.Lifecycle;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.internal.DirectDispatcher;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.relay.Relay;
import dev.waybill.outbox.internal.relay.RelaySettings;
import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.relay.DeadScopePolicy;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.Transport;

/**
 * A relay built by hand, for tests that run one without an application context: on a store
 * wrapped to inject faults, on a pool of its own, two relays on one database, in a child process.
 * Closing it stops it.
 */
public final class TestRelay implements Lifecycle, AutoCloseable {

	/** The name of the logger the relay logs its outages and failures with. */
	public static final String LOGGER_NAME = Relay.class.getName();

	/** The logger name the relay and its parts share as a prefix. */
	public static final String LOGGER_PREFIX = Relay.class.getPackageName();

	/** How long a claim holds by default. */
	public static final Duration DEFAULT_LEASE = RelaySettings.defaults().leaseDuration();

	private final Relay relay;

	private TestRelay(Relay relay) {
		this.relay = relay;
	}

	/**
	 * Starts building a relay with the default settings, its own wake-up and backlog.
	 * @param store where the scopes are
	 * @param transport the broker
	 * @return the builder
	 */
	public static Builder builder(OutboxStore store, Transport transport) {
		return new Builder(store, transport);
	}

	@Override
	public void start() {
		this.relay.start();
	}

	@Override
	public void stop() {
		this.relay.stop();
	}

	@Override
	public boolean isRunning() {
		return this.relay.isRunning();
	}

	@Override
	public void close() {
		stop();
	}

	/**
	 * Returns the relay's id; its lease owners start with it.
	 * @return host, process id and a random suffix
	 */
	public String id() {
		return this.relay.id();
	}

	/**
	 * Returns the state of the relay's circuit breaker.
	 * @return the state
	 */
	public CircuitState circuitState() {
		return this.relay.circuitState();
	}

	/**
	 * Returns how long the relay has been holding messages back until standbys have their
	 * commits, when longer than a second.
	 * @return how long, or {@literal null}
	 */
	public @Nullable Duration standbysAwaitedFor() {
		return this.relay.status().standbysAwaitedFor();
	}

	DirectDispatcher enableDirectDispatch() {
		return this.relay.enableDirectDispatch();
	}

	/**
	 * Configures a {@link TestRelay}.
	 */
	public static final class Builder {

		private final OutboxStore store;

		private final Transport transport;

		private RelayWakeUp wakeUp = new RelayWakeUp();

		private OutboxBacklog backlog = new OutboxBacklog();

		private RelaySettings settings = RelaySettings.defaults();

		private RelayListener listener = RelayListener.NONE;

		private DeadScopePolicy deadScopePolicy = DeadScopePolicy.BLOCK;

		private @Nullable DataSource standbysOf;

		private int standbys;

		private Builder(OutboxStore store, Transport transport) {
			this.store = Objects.requireNonNull(store, "store must not be null");
			this.transport = Objects.requireNonNull(transport, "transport must not be null");
		}

		/**
		 * Sets the wake-up the relay waits on; the publishers' writing to the same store signal it.
		 * @param wakeUp the wake-up
		 * @return this builder
		 */
		public Builder wakeUp(RelayWakeUp wakeUp) {
			this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
			return this;
		}

		Builder backlog(OutboxBacklog backlog) {
			this.backlog = backlog;
			return this;
		}

		/**
		 * Sets how the relay runs.
		 * @param workers worker threads, each with its own broker channel, at least 1
		 * @param batchSize the most scopes one claim takes
		 * @param lease how long a claim holds before another relay may take the scope over
		 * @param pollInterval the fallback check for due scopes when no wake-up arrives
		 * @param shutdownTimeout how long stopping waits for outstanding confirms
		 * @param retry backoff and the attempt limit
		 * @param failureThreshold consecutive broker failures that open the circuit breaker
		 * @param coolDown how long the open breaker waits before probing the broker
		 * @return this builder
		 */
		public Builder settings(int workers, int batchSize, Duration lease, Duration pollInterval,
				Duration shutdownTimeout, RetryPolicy retry, int failureThreshold, Duration coolDown) {
			this.settings = new RelaySettings(workers, batchSize, lease, pollInterval, shutdownTimeout, retry,
					failureThreshold, coolDown);
			return this;
		}

		/**
		 * Sets the retry rules, keeping the other settings.
		 * @param retry backoff and the attempt limit
		 * @return this builder
		 */
		public Builder retry(RetryPolicy retry) {
			this.settings = this.settings.withRetry(retry);
			return this;
		}

		/**
		 * Sets who is told about each outcome; nobody by default.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(RelayListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener must not be null");
			return this;
		}

		/**
		 * Sets what a dead scope with an ordering key does to its key's later scopes.
		 * @param policy the policy; {@link DeadScopePolicy#BLOCK} by default
		 * @return this builder
		 */
		public Builder deadScopePolicy(DeadScopePolicy policy) {
			this.deadScopePolicy = Objects.requireNonNull(policy, "policy must not be null");
			return this;
		}

		/**
		 * Makes the relay publish only what {@code standbys} standbys have flushed.
		 * @param primary the relay's database
		 * @param standbys how many standbys
		 * @return this builder
		 */
		public Builder awaitStandbys(DataSource primary, int standbys) {
			this.standbysOf = Objects.requireNonNull(primary, "primary must not be null");
			this.standbys = standbys;
			return this;
		}

		/**
		 * Builds the relay, not started.
		 * @return the relay
		 */
		public TestRelay build() {
			Relay relay = new Relay(this.store, this.transport, this.wakeUp, this.settings, this.listener,
					this.backlog);
			relay.setDeadScopePolicy(this.deadScopePolicy);
			if (this.standbysOf != null) {
				relay.awaitStandbys(this.standbysOf, this.standbys);
			}
			return new TestRelay(relay);
		}

		/**
		 * Builds the relay and starts it.
		 * @return the running relay
		 */
		public TestRelay start() {
			TestRelay relay = build();
			relay.start();
			return relay;
		}

	}

}
