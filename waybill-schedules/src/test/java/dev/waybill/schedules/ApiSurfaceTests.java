package dev.waybill.schedules;

import java.util.Set;

import dev.waybill.outbox.test.ApiSurfaceContract;

/**
 * Holds waybill-schedules's public API to a reviewed list: implementation classes belong in
 * {@code dev.waybill.schedules.internal} (or are package-private), and API signatures do not make users import them.
 */
class ApiSurfaceTests extends ApiSurfaceContract {

	/** Every public type outside the internal packages, each there because a user needs it. */
	static final Set<String> API = Set.of(
			"dev.waybill.schedules.MissedTickPolicy",
			"dev.waybill.schedules.Schedule",
			"dev.waybill.schedules.ScheduleStatus",
			"dev.waybill.schedules.ScheduleTick",
			"dev.waybill.schedules.ScheduledMessages",
			"dev.waybill.schedules.Schedules",
			"dev.waybill.schedules.StoreSchedules",
			"dev.waybill.schedules.autoconfigure.WaybillSchedulesAutoConfiguration",
			"dev.waybill.schedules.autoconfigure.WaybillSchedulesProperties");

	ApiSurfaceTests() {
		super(Schedules.class, API);
	}

}
