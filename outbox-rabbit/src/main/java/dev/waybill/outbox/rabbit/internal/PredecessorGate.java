package dev.waybill.outbox.rabbit.internal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Keeps a partitioned consumer's deliveries of one ordering key in their publish order when the
 * broker let a later one overtake an earlier one. The relay publishes a key's run of messages
 * without waiting for each confirm, each behind its predecessor, whose id it carries in
 * {@code waybill-ordering-previous}; if the broker refuses one (a nack) and takes the next, the
 * next arrives first and the refused one comes later, published again. So a delivery whose
 * predecessor this consumer has neither passed on nor recorded in its inbox is held back, with
 * every later delivery of its key, until the predecessor arrives; then they go on in order.
 * <p>
 * A predecessor that never comes (the queue dropped it: a message TTL, a length limit with
 * drop-head) must not stop the key for good: after {@code wait} the held deliveries go on without
 * it, told at WARN and to the inbox's listeners (its meters count the gaps). A look-up of the
 * predecessor that fails (the database is unavailable) holds the delivery too, and is made again
 * until it answers. Held deliveries stay unacknowledged, so a closed
 * channel or a crash returns them to the queue like any other.
 * <p>
 * Called on the channel's dispatch thread, and on a timer for the wait; thread-safe.
 */
final class PredecessorGate {

	private static final Log logger = LogFactory.getLog(PredecessorGate.class);

	/** The ids of the deliveries passed on most recently: a predecessor among them needs no lookup. */
	private static final int REMEMBERED = 8192;

	/** How soon a predecessor whose look-up failed is looked up again. */
	private static final Duration LOOK_AGAIN = Duration.ofMillis(100);

	private final Duration wait;

	private final String queue;

	/** Whether the delivery's consumer recorded a message in its inbox (received it before this channel). */
	private final BiPredicate<HeldDelivery, String> recorded;

	/** Passes a delivery on to its lane, with its key. */
	private final BiConsumer<String, HeldDelivery> pass;

	private final Map<String, ArrayDeque<Waiting>> held = new HashMap<>();

	private final LinkedHashMap<String, Boolean> passed = new LinkedHashMap<>(256, 0.75f, false) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
			return size() > REMEMBERED;
		}

	};

	/** Told of a delivery that goes on without its predecessor, named second. */
	private final BiConsumer<HeldDelivery, String> gaps;

	private volatile boolean everHeld;

	private boolean closed;

	/**
	 * @param wait how long a delivery waits for its predecessor; positive
	 * @param queue the consumed queue, for the logs
	 * @param recorded whether the inbox has a row of a message id for the consumer of a delivery
	 * @param pass passes a delivery on to its key's lane
	 * @param gaps told of each delivery that goes on without its predecessor, and the predecessor's id
	 */
	PredecessorGate(Duration wait, String queue, BiPredicate<HeldDelivery, String> recorded,
			BiConsumer<String, HeldDelivery> pass, BiConsumer<HeldDelivery, String> gaps) {
		this.wait = wait;
		this.queue = queue;
		this.recorded = recorded;
		this.pass = pass;
		this.gaps = gaps;
	}

	/**
	 * Passes a delivery on, or holds it back behind its missing predecessor.
	 * @param key its ordering key
	 * @param previous the id of its key's previous message, if it was published behind it
	 * @param delivery the delivery
	 */
	synchronized void arrive(String key, @Nullable String previous, HeldDelivery delivery) {
		if (this.closed) {
			return; // its channel closed: it is delivered again
		}
		ArrayDeque<Waiting> waiting = this.held.get(key);
		if (waiting == null) {
			Readiness readiness = readiness(previous, delivery);
			if (readiness == Readiness.READY) {
				passOn(key, delivery);
				return;
			}
			waiting = new ArrayDeque<>();
			this.held.put(key, waiting);
			this.everHeld = true;
			waiting.add(new Waiting(previous, delivery, System.nanoTime()));
			logger.debug("Waybill holds delivery " + delivery.message().messageId() + " of ordering key '" + key
					+ "' on " + this.queue + " until its predecessor " + previous + " arrives");
			expireIn(key, this.wait.toNanos());
			if (readiness == Readiness.UNKNOWN) {
				lookAgainIn(key);
			}
			return;
		}
		waiting.add(new Waiting(previous, delivery, System.nanoTime()));
		release(key, waiting);
	}

	/** Whether it ever held a delivery: from then on its consumer's acknowledgements are one each. */
	boolean everHeld() {
		return this.everHeld;
	}

	/** Drops what it holds: the channel closed, and the broker delivers them again. */
	synchronized void close() {
		this.closed = true;
		this.held.clear();
	}

	/** How many deliveries it holds. */
	synchronized int holding() {
		return this.held.values().stream().mapToInt(ArrayDeque::size).sum();
	}

	private Readiness readiness(@Nullable String previous, HeldDelivery delivery) {
		// No predecessor named: the head of a run, published once every earlier message of its key
		// was confirmed. A copy of a delivery already passed on is a duplicate, which the inbox drops.
		if (previous == null || this.passed.containsKey(previous)) {
			return Readiness.READY;
		}
		String id = delivery.message().messageId();
		if (id != null && this.passed.containsKey(id)) {
			return Readiness.READY;
		}
		try {
			return this.recorded.test(delivery, previous) ? Readiness.READY : Readiness.WAITING;
		}
		catch (RuntimeException ex) {
			// The database is unavailable: passed on, the delivery could be handled ahead of its
			// predecessor once the database is back, so it waits for an answer (or the predecessor).
			logger.debug("Waybill could not look up predecessor " + previous + " on " + this.queue
					+ ", looking again in " + LOOK_AGAIN.toMillis() + " ms: " + ex);
			return Readiness.UNKNOWN;
		}
	}

	/** Looks up the predecessor of the key's first held delivery again, whose last look-up failed. */
	private synchronized void lookAgain(String key) {
		ArrayDeque<Waiting> waiting = this.held.get(key);
		if (this.closed || waiting == null || waiting.isEmpty()) {
			return;
		}
		Waiting first = waiting.peekFirst();
		switch (readiness(first.previous, first.delivery)) {
			case READY -> {
				waiting.removeFirst();
				passOn(key, first.delivery);
				release(key, waiting);
			}
			case UNKNOWN -> lookAgainIn(key);
			case WAITING -> {
				// held until its predecessor arrives or the wait is over, as any other
			}
		}
	}

	private void lookAgainIn(String key) {
		CompletableFuture.delayedExecutor(LOOK_AGAIN.toNanos(), TimeUnit.NANOSECONDS).execute(() -> lookAgain(key));
	}

	/** Passes on, in order, every held delivery of the key that is ready now. */
	private void release(String key, ArrayDeque<Waiting> waiting) {
		boolean progress = true;
		while (progress && !waiting.isEmpty()) {
			progress = false;
			for (Iterator<Waiting> it = waiting.iterator(); it.hasNext();) {
				Waiting next = it.next();
				if (next.previous == null || this.passed.containsKey(next.previous) || passedAlready(next.delivery)) {
					it.remove();
					passOn(key, next.delivery);
					progress = true;
					break;
				}
			}
		}
		if (waiting.isEmpty()) {
			this.held.remove(key);
		}
	}

	private boolean passedAlready(HeldDelivery delivery) {
		String id = delivery.message().messageId();
		return id != null && this.passed.containsKey(id);
	}

	private synchronized void expire(String key) {
		ArrayDeque<Waiting> waiting = this.held.get(key);
		while (!this.closed && waiting != null && !waiting.isEmpty()) {
			Waiting first = waiting.peekFirst();
			long left = first.since + this.wait.toNanos() - System.nanoTime();
			if (left > 0) {
				expireIn(key, left); // a later hold of the key: it waits out its own time
				return;
			}
			waiting.removeFirst();
			try {
				this.gaps.accept(first.delivery, String.valueOf(first.previous));
			}
			catch (RuntimeException ex) {
				logger.debug("Waybill could not tell of an ordering gap on " + this.queue + ": " + ex);
			}
			logger.warn("Waybill handles delivery " + first.delivery.message().messageId() + " of ordering key '"
					+ key + "' on " + this.queue + " without its predecessor " + first.previous
					+ ", which did not arrive within " + this.wait + ": the broker refused it and the relay has not "
					+ "published it again yet (see the relay's log), or the queue dropped it (a message TTL, a length "
					+ "limit); the key's order has a gap here");
			passOn(key, first.delivery);
			release(key, waiting);
			waiting = this.held.get(key);
		}
	}

	private void expireIn(String key, long nanos) {
		CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS).execute(() -> expire(key));
	}

	private void passOn(String key, HeldDelivery delivery) {
		String id = delivery.message().messageId();
		if (id != null) {
			this.passed.put(id, Boolean.TRUE);
		}
		this.pass.accept(key, delivery);
	}

	/** The keys held back now, for tests. */
	synchronized List<String> heldKeys() {
		return new ArrayList<>(this.held.keySet());
	}

	private record Waiting(@Nullable String previous, HeldDelivery delivery, long since) {
	}

	/** Whether a delivery may go on: yes, not before its predecessor, or not known (the look-up failed). */
	private enum Readiness {

		READY, WAITING, UNKNOWN

	}

}
