package dev.waybill.replay;

import java.util.Set;

import dev.waybill.outbox.test.ApiSurfaceContract;

/**
 * Holds waybill-replay's public API to a reviewed list: implementation classes belong in
 * {@code dev.waybill.replay.internal} (or are package-private), and API signatures do not make users import them.
 */
class ApiSurfaceTests extends ApiSurfaceContract {

	/** Every public type outside the internal packages, each there because a user needs it. */
	static final Set<String> API = Set.of(
			"dev.waybill.replay.ReplayJob",
			"dev.waybill.replay.ReplayRequest",
			"dev.waybill.replay.ReplayStatus",
			"dev.waybill.replay.ReplayTarget",
			"dev.waybill.replay.Replays",
			"dev.waybill.replay.StoreReplays",
			"dev.waybill.replay.autoconfigure.WaybillReplayAutoConfiguration",
			"dev.waybill.replay.autoconfigure.WaybillReplayProperties");

	ApiSurfaceTests() {
		super(Replays.class, API);
	}

}
