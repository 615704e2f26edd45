package dev.waybill.outbox.internal.relay;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

import dev.waybill.kernel.HostNames;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.internal.DirectDispatcher;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.observation.RelayObservation;
import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.relay.DeadScopePolicy;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.spi.Transport;

/**
 * Delivers committed outbox scopes to the broker. Each worker thread claims a batch of due
 * scopes under a lease, publishes their messages in order on its own channel and moves on to the
 * next claim while the confirms arrive; a settling thread then marks confirmed scopes published
 * in one statement and records failures. So the database and the broker work at the same time,
 * and no transaction, lock or pooled connection is held while waiting on the broker. A claim's
 * commit runs on a thread of its own ({@link ClaimCommits}) while the worker publishes, so its
 * flush is not on the way from commit to confirm; outcomes are recorded once it committed.
 * <p>
 * With direct dispatch ({@link #enableDirectDispatch()}), scopes this process writes are leased
 * to the relay by their write and published by a worker of its own right after their commit,
 * without a claim; the claiming workers deliver everything else.
 * <p>
 * Workers wait for a {@link RelayWakeUp} signal (given after each commit that published, and on
 * PostgreSQL notifications from other instances); one of them also polls every
 * {@code pollInterval} with one cheap statement, as a fallback. A {@link CircuitBreaker} stops
 * claims while the broker is unreachable, so an outage costs no delivery attempts.
 * <p>
 * Leases are short (12 s by default) and renewed every third of the lease while the relay still
 * works on a scope, so the scopes of a relay that died are taken over by another within about a
 * lease, while a live relay never loses a scope it is still publishing or recording.
 *
 * @since 0.1
 */
public final class Relay implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(Relay.class);

	/** Batches a worker may have awaiting confirms while it claims the next. */
	static final int MAX_IN_FLIGHT_BATCHES = 8;

	/** The longest a waiting thread goes without checking whether the relay is stopping. */
	static final Duration STOP_CHECK = Duration.ofMillis(100);

	/** Routes each write about a claimed scope to the store it was claimed from. */
	private final OutboxStore store;

	private final RelayLanes lanes;

	private final StoreRecovery recovery;

	private final RelayStores stores;

	private final RelayStatus status;

	private final Transport transport;

	private final RelayWakeUp wakeUp;

	private final RelaySettings settings;

	private final RelayListener listener;

	private final CircuitBreaker breaker;

	/** Replaced on every start: the one a stop ended does not run again. */
	private volatile Settler settler;

	private volatile DeadScopePolicy deadScopePolicy = DeadScopePolicy.BLOCK;

	private final Leases leases;

	/** Set when this process's writers lease scopes to this relay (direct dispatch), before start. */
	private volatile @Nullable DirectDispatch direct;

	/** Replaced on every start, as the settler is. */
	private volatile ClaimCommits claimCommits = new ClaimCommits();

	private final String id;

	private final ClaimFailureLog claimFailures;

	private final AtomicLong claims = new AtomicLong();

	private final RelayPacing pacing;

	private final BrokerOutageLog outages;

	private volatile WaybillThreads threadSource = WaybillThreads.platform();

	private volatile RelayObservation observation = RelayObservation.NONE;

	private volatile StandbyReplication replication = StandbyReplication.NONE;

	private volatile boolean running;

	/** Guarded by this. */
	private boolean startedBefore;

	/** The threads of the last start, by job; volatile for health checks that must not wait for the lock. */
	private volatile RelayThreads threads = RelayThreads.NONE;

	private final LeaseRenewal renewal;

	/**
	 * Creates a relay; {@link #start()} starts it.
	 * @param store where the scopes are
	 * @param transport the broker
	 * @param wakeUp signalled when work is waiting
	 * @param settings how to run
	 * @param listener told about each outcome
	 * @param backlog where the relay publishes the backlog figures it reads every poll interval
	 */
	public Relay(OutboxStore store, Transport transport, RelayWakeUp wakeUp, RelaySettings settings,
			RelayListener listener, OutboxBacklog backlog) {
		Objects.requireNonNull(store, "store must not be null");
		this.transport = Objects.requireNonNull(transport, "transport must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
		this.settings = Objects.requireNonNull(settings, "settings must not be null");
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
		Objects.requireNonNull(backlog, "backlog must not be null");
		this.id = HostNames.local() + ":" + ProcessHandle.current().pid() + ":" + UUID.randomUUID().toString().substring(0, 8);
		this.outages = new BrokerOutageLog(this.id, settings.coolDown(), listener);
		this.breaker = new CircuitBreaker(settings.failureThreshold(), settings.coolDown(), Clock.systemUTC(),
				this.outages::circuitChanged);
		this.claimFailures = new ClaimFailureLog(this.id, settings.pollInterval());
		this.lanes = new RelayLanes(this.id, WaybillStore.DEFAULT_NAME, store, this.claimFailures, settings.pollInterval(),
				wakeUp);
		this.recovery = new StoreRecovery(this.id, this.lanes::others, wakeUp, settings.pollInterval(), () -> this.running,
				() -> this.threadSource);
		this.lanes.setRecovery(this.recovery);
		this.stores = new RelayStores(this.lanes);
		store = this.lanes.routing();
		this.store = store;
		this.pacing = new RelayPacing(store, wakeUp, settings.pollInterval(), backlog, () -> this.running, this.lanes);
		this.leases = new Leases(store, settings.leaseDuration());
		this.renewal = new LeaseRenewal(this.id, this.leases, this.claimFailures, wakeUp, this.pacing,
				() -> this.running, () -> this.threads.all());
		this.settler = newSettler();
		this.status = new RelayStatus(() -> this.threads, settings.workers() + 3, () -> this.direct != null, this.outages,
				transport, this.claimFailures, () -> this.replication);
	}

	private Settler newSettler() {
		Settler settler = new Settler(this.store, this.leases, this.settings.retry(), this.listener, this.breaker,
				this.pacing::dueIn, this.wakeUp::signal);
		settler.setDeadScopePolicy(this.deadScopePolicy);
		return settler;
	}

	/**
	 * Makes the relay publish a scope only once {@code standbys} streaming standbys of the
	 * database have flushed the transaction that wrote it, so that a failover to a standby of an
	 * asynchronously replicated primary never leaves a published message whose transaction is
	 * lost; call before {@link #start()}.
	 * @param dataSource the relay's database, the primary
	 * @param standbys how many standbys, at least 1
	 * @throws IllegalStateException when the database's role may not read the standbys' positions
	 * @since 0.1
	 */
	public void awaitStandbys(DataSource dataSource, int standbys) {
		this.replication = StandbyReplication.of(dataSource, standbys);
	}

	/**
	 * Returns whether the relay waits for standbys before it publishes.
	 * @return whether {@link #awaitStandbys} was called
	 */
	public boolean awaitsStandbys() {
		return this.replication.enabled();
	}

	/**
	 * Sets what a dead scope with an ordering key does to its key's later scopes;
	 * {@link DeadScopePolicy#BLOCK} by default.
	 * @param policy the policy
	 * @since 0.1
	 */
	public void setDeadScopePolicy(DeadScopePolicy policy) {
		this.deadScopePolicy = Objects.requireNonNull(policy, "policy must not be null");
		this.settler.setDeadScopePolicy(policy);
	}

	/**
	 * Returns the stores the relay relays besides its default one.
	 * @return them
	 * @since 0.1
	 */
	public RelayStores stores() {
		return this.stores;
	}

	/**
	 * Returns this relay's id; lease owners are derived from it.
	 * @return the id: host, process id and a random suffix
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Returns the circuit breaker's state.
	 * @return the state
	 */
	public CircuitState circuitState() {
		return this.breaker.state();
	}

	/**
	 * Sets where the relay's threads come from; {@link WaybillThreads#platform()} by default.
	 * @param threads the thread source
	 */
	public void setThreads(WaybillThreads threads) {
		this.threadSource = Objects.requireNonNull(threads, "threads must not be null");
	}

	/**
	 * Sets how the relay observes each message it publishes ({@code waybill.relay.publish});
	 * {@link RelayObservation#NONE} by default.
	 * @param observation the observation
	 * @since 0.1
	 */
	public void setObservation(RelayObservation observation) {
		this.observation = Objects.requireNonNull(observation, "observation must not be null");
	}

	/**
	 * Lets this process's writers lease the scopes they write to this relay, which then publishes
	 * them right after their commit on a worker of its own, without a claim (see
	 * {@code JdbcOutboxStore.setDirectDispatcher}); call before {@link #start()}.
	 * @return the dispatcher to give the writers' store
	 * @since 0.1
	 */
	public synchronized DirectDispatcher enableDirectDispatch() {
		DirectDispatch direct = this.direct;
		if (direct == null) {
			direct = new DirectDispatch(this.id, this.store, this.wakeUp, this.breaker, this.leases,
					this.settings.leaseDuration(), this::running);
			this.direct = direct;
		}
		return direct;
	}

	/**
	 * Returns what the relay's health reads: its threads, and why the broker or the claims fail.
	 * @return the relay's status
	 * @since 0.1
	 */
	public RelayStatus status() {
		return this.status;
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.pacing.started();
		this.lanes.started();
		if (this.startedBefore) {
			// a stop ended the settler and the commits thread, and let them drain
			this.settler = newSettler();
			this.claimCommits = new ClaimCommits();
		}
		this.startedBefore = true;
		this.renewal.started();
		RelayContext context = new RelayContext(this.id, this.store, this.transport, this.settings, this.wakeUp,
				this.breaker, this.claimFailures, () -> this.settler, this.leases, () -> this.claimCommits,
				() -> this.observation, this.pacing, this.outages, this::running, this.claims, this.replication,
				this.lanes);
		Map<String, Runnable> workers = new LinkedHashMap<>();
		for (int i = 0; i < this.settings.workers(); i++) {
			workers.put("waybill-relay-" + i, new RelayWorker(context, i)::run);
		}
		DirectDispatch direct = this.direct;
		if (direct != null) {
			workers.put("waybill-relay-direct", new RelayWorker(context, direct)::run);
		}
		this.threads = RelayThreads.start(this.id, this.threadSource, this.settler::run, this.renewal::run,
				this.claimCommits::run, workers);
		logger.info("Waybill relay " + this.id + " started with " + this.settings.workers() + " workers"
				+ ((direct != null) ? " and direct dispatch (for scopes without an ordering key)" : ""));
	}

	/**
	 * Stops claiming, waits up to the shutdown timeout for outstanding confirms, records their
	 * outcomes, closes the channels, and gives back every scope it still holds (due at once, without
	 * counting an attempt) so another instance takes them over without waiting for the leases.
	 */
	@Override
	public synchronized void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		this.wakeUp.signal();
		this.recovery.stop();
		long deadline = System.nanoTime() + this.settings.shutdownTimeout().toNanos() + TimeUnit.SECONDS.toNanos(5);
		RelayThreads threads = this.threads;
		threads.joinWorkers(deadline);
		this.claimCommits.stop();
		threads.joinCommits(deadline);
		this.settler.stop();
		threads.joinSettlerAndLeases(deadline);
		int released = this.renewal.giveBackOnStop();
		DirectDispatch direct = this.direct;
		if (direct != null) {
			// Given back with the rest of what the relay held: no later start publishes them.
			direct.finished(direct.drain(Integer.MAX_VALUE));
			direct.finished(direct.takeLate()); // left to their leases
		}
		logger.info("Waybill relay " + this.id + " stopped" + ((released > 0) ? ", giving back " + released
				+ " scope(s) it had claimed without an outcome" : ""));
	}

	/**
	 * Returns {@link WaybillPhases#RELAY}.
	 */
	@Override
	public int getPhase() {
		return WaybillPhases.RELAY;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Whether the relay claims and publishes: started, not stopped, and none of its threads died. */
	boolean running() {
		return this.running && !this.renewal.halted();
	}

}
