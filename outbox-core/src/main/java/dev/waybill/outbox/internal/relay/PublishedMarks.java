package dev.waybill.outbox.internal.relay;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * Marks confirmed scopes published, one statement per lease owner, and tells the listener about
 * those that were this relay's to mark; a published keyed scope wakes the workers, as its key's next
 * scope may now be claimable.
 */
final class PublishedMarks {

	// Under the settler's category, where its other lines are.
	private static final Log logger = LogFactory.getLog(Settler.class);

	private final OutboxStore store;

	private final Leases leases;

	private final RelayListener listener;

	private final CircuitBreaker breaker;

	/** Wakes the relay's workers: a published keyed scope may have made its key's next claimable. */
	private final Runnable promoted;

	PublishedMarks(OutboxStore store, Leases leases, RelayListener listener, CircuitBreaker breaker, Runnable promoted) {
		this.store = store;
		this.leases = leases;
		this.listener = listener;
		this.breaker = breaker;
		this.promoted = promoted;
	}

	/**
	 * Marks the scopes published.
	 * @param published the confirmed outcomes, in the order they came
	 * @param failed where the outcomes go whose mark did not go through
	 */
	void mark(List<Outcome> published, FailedWrites failed) {
		// Outcomes whose earlier write failed are marked apart from the others: when a write's
		// reply was lost (the connection broke during it) the write may have committed, and a scope
		// this relay marked itself is not one another relay took over.
		Map<String, List<Outcome>> byOwner = new LinkedHashMap<>();
		for (Outcome outcome : published) {
			byOwner.computeIfAbsent(outcome.scope().leaseOwner(), (owner) -> new ArrayList<>()).add(outcome);
		}
		Map<MarkGroup, List<Outcome>> groups = new LinkedHashMap<>();
		byOwner.forEach((owner, outcomes) -> outcomes.forEach((outcome) -> groups
			.computeIfAbsent(new MarkGroup(owner, outcome.retried()), (group) -> new ArrayList<>())
			.add(outcome)));
		groups.forEach((group, outcomes) -> mark(group, outcomes, failed));
	}

	private void mark(MarkGroup group, List<Outcome> outcomes, FailedWrites failed) {
		List<UUID> ids = outcomes.stream().map((outcome) -> outcome.scope().id()).toList();
		int marked;
		try {
			marked = this.store.markPublished(group.owner(), ids);
		}
		catch (RuntimeException ex) {
			failed.addAll(outcomes, ex);
			return;
		}
		// The broker's answers are as recent as the last confirm, which a cut connection may have followed.
		this.breaker.recordSuccess(outcomes.stream().map(Outcome::completedAt).max(Instant::compareTo).orElseThrow());
		if (outcomes.stream().anyMatch(Outcome::hasOrderingKey)) {
			this.promoted.run();
		}
		// The mark is fenced by the lease owner: a relay that paused (or fell behind) for more
		// than a lease lost these scopes to another relay, which publishes them again. They are
		// not this relay's to report published (the store does not say which of a partly
		// marked batch it marked, so a partial batch reports none).
		boolean all = marked == ids.size();
		boolean published = all || group.retried();
		if (!all && group.retried()) {
			// The scopes' leases were renewed while their outcome waited here, so the likely
			// reason is that the earlier write, whose answer was lost, committed: they are
			// published, and no other relay publishes them again.
			logger.info("Waybill relay found " + (ids.size() - marked) + " of " + ids.size() + " published scope(s) "
					+ "no longer leased to it when it recorded them again: its earlier write, whose answer was lost, "
					+ "most likely committed (else, after a database outage longer than a lease, another relay took "
					+ "them over and publishes them again): " + ids);
		}
		else if (!all) {
			logger.warn("Waybill relay lost the lease of " + (ids.size() - marked) + " of " + ids.size()
					+ " scope(s) it published before it could record them (it paused, fell behind, or waited for"
					+ " a pooled connection, for more than a lease: is the connection pool large enough?); another"
					+ " relay took them over and publishes them again: " + ids);
		}
		outcomes.forEach((outcome) -> {
			this.leases.settled(outcome.scope());
			if (published) {
				this.listener.published(outcome.scope(), outcome.completedAt());
			}
		});
	}

	/** Published outcomes marked in one statement: one lease owner's, tried before or not. */
	private record MarkGroup(String owner, boolean retried) {
	}

}
