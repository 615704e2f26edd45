package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.WaybillMdc;
import dev.waybill.outbox.internal.observation.RelayObservation;
import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.KeysInFlight;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;

/**
 * One relay worker: claims, publishes on its own channel, and hands each scope's outcome to the
 * settler without waiting for it, up to {@link Relay#MAX_IN_FLIGHT_BATCHES} batches ahead.
 */
final class RelayWorker {

	private static final Log logger = LogFactory.getLog(RelayWorker.class);

	private final RelayContext context;

	private final boolean primary;

	private final int index;

	private final Semaphore inFlight = new Semaphore(Relay.MAX_IN_FLIGHT_BATCHES);

	/** A permit while this worker's last claim is being committed by {@link ClaimCommits}. */
	private final Semaphore uncommitted = new Semaphore(1);

	/** Completed once the claim under way is committed, if it handed its commit over; worker thread only. */
	private @Nullable CompletableFuture<Void> claimCommitted;

	private @Nullable TransportChannel channel;

	/** The ordering keys this worker has in flight on its channel, across its batches, by store. */
	private final LaneRuns runs = new LaneRuns();

	/** Whether its last claim continued keys in flight (counted by the pacing); worker thread only. */
	private boolean continuing;

	/** For the direct worker: where the scopes it publishes come from, instead of claims. */
	private final @Nullable DirectDispatch direct;

	RelayWorker(RelayContext context, int index) {
		this.context = context;
		this.index = index;
		this.primary = index == 0;
		this.direct = null;
	}

	/** The direct worker: publishes the scopes {@code direct} queues after their commits. */
	RelayWorker(RelayContext context, DirectDispatch direct) {
		this.context = context;
		this.index = -1;
		this.primary = false;
		this.direct = direct;
	}

	void run() {
		try {
			while (this.context.running()) {
				try {
					if (this.direct != null) {
						stepDirect(this.direct);
					}
					else {
						step();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
				catch (RuntimeException ex) {
					this.context.claimFailures().failed(ex);
					pauseQuietly();
				}
			}
		}
		finally {
			continuing(false);
			drainAndClose();
		}
	}

	private void continuing(boolean continues) {
		if (continues != this.continuing) {
			this.continuing = continues;
			this.context.pacing().continuing(continues);
		}
	}

	private void step() throws InterruptedException {
		if (this.primary) {
			this.context.pacing().refreshStatsIfStale();
		}
		CircuitBreaker breaker = this.context.breaker();
		switch (breaker.acquire()) {
			case WAIT -> {
				this.context.pacing().pause(min(breaker.remainingCoolDown(), this.context.settings().pollInterval()));
				return;
			}
			case PROBE -> {
				probe(breaker);
				return;
			}
			case CLAIM -> {
			}
		}
		TransportChannel channel = openChannel(breaker);
		if (channel == null) {
			return;
		}
		if (!this.inFlight.tryAcquire(Relay.STOP_CHECK.toMillis(), TimeUnit.MILLISECONDS)) {
			return;
		}
		// The next claim waits for the last one's commit: a worker holds one connection for claims
		// at a time, however slow the commits; what overlaps the commit is the publish.
		if (!this.uncommitted.tryAcquire(Relay.STOP_CHECK.toMillis(), TimeUnit.MILLISECONDS)) {
			this.inFlight.release();
			return;
		}
		long claimStarted = System.nanoTime();
		if (this.primary) {
			this.context.lanes().probeIfDue(claimStarted); // also while the default store keeps it busy
		}
		// Another store that is due goes first, in turn; the default store's claims are paced as
		// when it is the only one.
		RelayLane other = this.context.lanes().takeDue(claimStarted);
		RelayLane lane = (other != null) ? other : this.context.lanes().defaultLane();
		String owner = lane.owner(this.context.nextLeaseOwner(this.index));
		KeyRuns runs = this.runs.of(lane);
		List<ClaimedScope> batch;
		this.claimCommitted = null;
		KeysInFlight inFlight = runs.inFlight(this.context.settings().batchSize());
		boolean behindRuns = this.runs.continuesLater();
		continuing(behindRuns);
		long signalsSeen = this.context.wakeUp().signals();
		try {
			batch = lane.store().claim(owner, this.context.settings().leaseDuration(), this.context.settings().batchSize(),
					this::commitLater, inFlight);
		}
		catch (RuntimeException ex) {
			this.inFlight.release();
			if (other != null) {
				this.context.lanes().failed(other, ex); // that store backs off; the others go on
				return;
			}
			throw ex;
		}
		finally {
			if (this.claimCommitted == null) {
				this.uncommitted.release();
			}
		}
		if (other != null) {
			other.claimed(claimStarted, batch.size(), this.context.settings().batchSize());
		}
		else {
			this.context.claimFailures().succeeded(claimStarted);
		}
		this.context.leases().hold(batch);
		if (batch.isEmpty()) {
			this.inFlight.release();
			if (other != null) {
				return; // the next step looks at the next due store, or the default one
			}
			if (!behindRuns) {
				this.context.pacing().awaitWork(this.primary);
			}
			else {
				this.context.pacing().awaitWorkBehind(signalsSeen);
			}
			return;
		}
		if (batch.size() >= this.context.settings().batchSize()) {
			this.context.pacing().moreDue(); // let another worker help
		}
		CompletableFuture<Void> committed = this.claimCommitted;
		if (!awaitStandbys()) {
			return; // stopping: the leases run out and another start claims the scopes again
		}
		publish(channel, batch, (committed != null) ? committed : CompletableFuture.completedFuture(null), owner, runs,
				lane.isDefault() ? null : lane.name(), () -> {
				});
	}

	private void stepDirect(DirectDispatch direct) throws InterruptedException {
		direct.giveBack(direct.takeLate());
		CircuitBreaker breaker = this.context.breaker();
		if (breaker.state() != CircuitState.CLOSED) {
			// The claiming workers probe the broker; what was committed meanwhile is claimed later.
			direct.giveBack(direct.drain(Integer.MAX_VALUE));
			this.context.pacing().pause(Relay.STOP_CHECK);
			return;
		}
		if (!this.inFlight.tryAcquire(Relay.STOP_CHECK.toMillis(), TimeUnit.MILLISECONDS)) {
			return;
		}
		List<ClaimedScope> batch = direct.take(this.context.settings().batchSize(), Relay.STOP_CHECK);
		if (batch.isEmpty()) {
			this.inFlight.release();
			return;
		}
		TransportChannel channel = openChannel(breaker);
		if (channel == null) {
			this.inFlight.release();
			direct.giveBack(batch);
			return;
		}
		try {
			if (!awaitStandbys()) {
				direct.giveBack(batch);
				return;
			}
		}
		catch (RuntimeException ex) {
			direct.giveBack(batch);
			throw ex;
		}
		publish(channel, batch, CompletableFuture.completedFuture(null), null, this.runs.ofDefault(), null,
				() -> direct.finished(batch));
	}

	/**
	 * Waits, when the relay is told to, until standbys have the commits of the scopes about to be
	 * published; gives the in-flight permit back unless it returns {@literal true}.
	 */
	private boolean awaitStandbys() throws InterruptedException {
		boolean replicated = false;
		try {
			replicated = this.context.replication().awaitCommitted(this.context::running);
			return replicated;
		}
		finally {
			if (!replicated) {
				this.inFlight.release();
			}
		}
	}

	private void commitLater(Runnable commit) {
		CompletableFuture<Void> committed = new CompletableFuture<>();
		this.claimCommitted = committed;
		this.context.claimCommits().execute(() -> {
			try {
				commit.run();
			}
			finally {
				this.uncommitted.release();
				committed.complete(null);
			}
		});
	}

	/**
	 * Publishes the batch at once; each scope's outcome goes to the settler once its messages are
	 * confirmed and the claim committed: the settling writes are fenced by the lease, which is
	 * not visible before the commit (after a failed commit they change nothing, as they should).
	 */
	private void publish(TransportChannel channel, List<ClaimedScope> batch, CompletableFuture<Void> committed,
			@Nullable String owner, KeyRuns runs, @Nullable String store, Runnable handedOver) {
		List<CompletableFuture<?>> settled = new ArrayList<>(batch.size());
		Instant now = Instant.now();
		RelayObservation observation = this.context.observation();
		// The scopes of a key go out one after the other, in the claim's order, without waiting for
		// each confirm; each is settled in the light of the earlier ones of its key.
		for (ClaimedScope scope : batch) {
			List<CompletableFuture<Void>> confirms = new ArrayList<>(scope.messages().size());
			for (OutboxMessage message : scope.messages()) {
				// A message whose time-to-live passed is not published (the broker would drop it).
				if (message.expiredAt(now)) {
					continue;
				}
				try (WaybillMdc mdc = WaybillMdc.relay(scope.id(), message.messageId(), message.messageType())) {
					OutboxMessage linked = runs.linked(scope, message);
					confirms.add(observation.publish(scope.id(),
							(store != null) ? linked.withHeader(PublishOptions.STORE_HEADER, store) : linked, channel::publish));
				}
			}
			if (confirms.isEmpty() && !scope.messages().isEmpty()) {
				settled.add(committed.thenRun(() -> this.context.settler().submitExpired(scope)));
				continue;
			}
			// One future per scope on top of its confirms (a scope of one message needs no allOf),
			// settled once the claim committed, with the time of its last confirm.
			CompletableFuture<Void> confirmed = (confirms.size() == 1) ? confirms.get(0)
					: CompletableFuture.allOf(confirms.toArray(CompletableFuture[]::new));
			CompletableFuture<Instant> confirmedAt = confirmed.handle((ok, failure) -> Instant.now());
			CompletableFuture<Void> scopeSettled = runs.inOrder(scope, confirmedAt, () -> ConfirmFailures.of(confirms))
				.thenCombine(committed, (failures, ok) -> failures)
				.thenAccept((failures) -> this.context.settler().submit(scope, failures, confirmedAt.join()));
			runs.unsettled(scope, scopeSettled);
			settled.add(scopeSettled);
		}
		CompletableFuture<Void> batchSettled = CompletableFuture.allOf(settled.toArray(CompletableFuture[]::new));
		if (owner != null) {
			runs.claimed(owner, batchSettled);
		}
		boolean keyed = owner != null && KeyRuns.keyed(batch);
		batchSettled.whenComplete((ok, failure) -> {
			this.inFlight.release();
			handedOver.run();
			if (keyed) {
				// room in its keys' windows: this worker, waiting behind them, looks again
				this.context.wakeUp().signal();
			}
		});
	}

	private @Nullable TransportChannel openChannel(CircuitBreaker breaker) throws InterruptedException {
		if (this.channel != null && this.channel.isOpen()) {
			return this.channel;
		}
		if (this.channel != null) {
			// Not counted by the breaker: the broker may close a channel for one message (a refused
			// permission, a deleted exchange); if the broker itself is gone, opening the next fails.
			this.channel.close();
			this.channel = null;
		}
		try {
			this.channel = this.context.transport().openChannel();
			return this.channel;
		}
		catch (TransportException ex) {
			logger.debug("Waybill relay could not open a broker channel: " + ex.getMessage());
			this.context.outages().brokerFailed(ex.getMessage());
			breaker.recordFailure();
			this.context.pacing().pause(min(this.context.settings().pollInterval(), this.context.settings().coolDown()));
			return null;
		}
	}

	private void probe(CircuitBreaker breaker) {
		if (this.channel != null) {
			this.channel.close();
			this.channel = null;
		}
		try {
			this.context.transport().probe();
			breaker.recordSuccess();
		}
		catch (TransportException | RuntimeException ex) {
			logger.debug("Waybill relay probe failed: " + ex.getMessage());
			this.context.outages().brokerFailed(ex.getMessage());
			breaker.recordFailure();
		}
	}

	private void drainAndClose() {
		try {
			// Let outstanding confirms arrive; closing the channel fails the rest as the broker's
			// failure, so the settler gives them back without counting an attempt.
			this.inFlight.tryAcquire(Relay.MAX_IN_FLIGHT_BATCHES, this.context.settings().shutdownTimeout().toMillis(),
					TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			if (this.channel != null) {
				this.channel.close();
			}
		}
	}

	private void pauseQuietly() {
		try {
			this.context.pacing().pause(this.context.settings().pollInterval());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static Duration min(Duration a, Duration b) {
		Duration shorter = a.compareTo(b) <= 0 ? a : b;
		return shorter.isZero() ? Duration.ofMillis(10) : shorter;
	}

}
