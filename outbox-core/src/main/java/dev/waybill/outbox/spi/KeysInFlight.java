package dev.waybill.outbox.spi;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The ordering keys a claimer has published scopes of and not yet settled, so that its next claim
 * can take each key's next scopes behind them and the key keeps moving without waiting for every
 * confirm ({@link OutboxStore#claim(String, java.time.Duration, int, java.util.concurrent.Executor, KeysInFlight)}).
 * Only a claimer that publishes on one channel, in order, and does not count a scope published
 * until every earlier one of its key was confirmed, may name its keys here.
 *
 * @param leaseOwners the lease owners of the claimer's claims whose scopes are not all settled
 * @param keys the keys whose runs are in flight under those owners
 * @since 0.1
 */
public record KeysInFlight(Set<String> leaseOwners, List<Key> keys) {

	/** No key in flight: a claim takes each key's first unpublished scope only. */
	public static final KeysInFlight NONE = new KeysInFlight(Set.of(), List.of());

	/**
	 * Copies both collections.
	 */
	public KeysInFlight {
		leaseOwners = Set.copyOf(leaseOwners);
		keys = List.copyOf(keys);
	}

	/**
	 * Whether there is no key in flight.
	 * @return {@literal true} when no key is named
	 */
	public boolean isEmpty() {
		return this.keys.isEmpty();
	}

	/**
	 * One key in flight: what its last published message was sent to, so that only scopes to the
	 * same place follow it (order holds along one channel into one queue), and whether the claim
	 * may continue it. A key that may not be continued now (one of its scopes was refused, its
	 * last scope has several messages, or the claimer's window for it is full) is not claimed at
	 * all by this claim, so that nothing of it goes out behind a later scope of it.
	 *
	 * @param orderingKey the ordering key
	 * @param destination the destination of the key's last published message
	 * @param routingKey the routing key of the key's last published message
	 * @param fromScope the first scope of the key the claimer has not settled, in the key's order:
	 * every earlier scope of the key is published (those of the claimer's run were confirmed), so
	 * a claim that continues the key reads it from this one on
	 * @param continuable whether the claim may take the key's next scopes
	 * @since 0.1
	 */
	public record Key(String orderingKey, String destination, String routingKey, UUID fromScope, boolean continuable) {

		/**
		 * Checks the arguments.
		 */
		public Key {
			Objects.requireNonNull(orderingKey, "orderingKey must not be null");
			Objects.requireNonNull(destination, "destination must not be null");
			Objects.requireNonNull(routingKey, "routingKey must not be null");
			Objects.requireNonNull(fromScope, "fromScope must not be null");
		}

	}

}
