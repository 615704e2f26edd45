package dev.waybill.outbox.internal.relay;

import java.util.HashMap;
import java.util.Map;

/**
 * The ordering keys a worker has in flight, one {@link KeyRuns} per store it claims from: a key of
 * one store is not the key of the same name in another. The worker's thread only.
 */
final class LaneRuns {

	private final KeyRuns defaultRuns = new KeyRuns();

	private final Map<RelayLane, KeyRuns> others = new HashMap<>();

	/**
	 * Returns the runs of a store.
	 * @param lane the store's lane
	 * @return its runs
	 */
	KeyRuns of(RelayLane lane) {
		return lane.isDefault() ? this.defaultRuns : this.others.computeIfAbsent(lane, (l) -> new KeyRuns());
	}

	/**
	 * Returns the default store's runs, those direct dispatch publishes.
	 * @return them
	 */
	KeyRuns ofDefault() {
		return this.defaultRuns;
	}

	/**
	 * Whether a key in flight of any store may be continued now or later (see
	 * {@link KeyRuns#continuesLater()}).
	 * @return whether one may
	 */
	boolean continuesLater() {
		if (this.defaultRuns.continuesLater()) {
			return true;
		}
		for (KeyRuns runs : this.others.values()) {
			if (runs.continuesLater()) {
				return true;
			}
		}
		return false;
	}

}
