package dev.waybill.schedules;

import java.util.List;
import java.util.Optional;

/**
 * Operates the schedules at run time, without a redeploy. Changes are made in the schedule table,
 * so they hold for every instance and survive restarts.
 *
 * @since 0.1
 */
public interface Schedules {

	/**
	 * Returns every schedule in the table, by name.
	 * @return the schedules
	 */
	List<ScheduleStatus> list();

	/**
	 * Returns one schedule.
	 * @param name the schedule's name
	 * @return the schedule, or empty when there is no such schedule
	 */
	Optional<ScheduleStatus> find(String name);

	/**
	 * Pauses a schedule: no tick fires until it is resumed. A tick firing at this moment completes.
	 * @param name the schedule's name
	 * @return whether the schedule exists (pausing a paused schedule is not an error)
	 */
	boolean pause(String name);

	/**
	 * Resumes a schedule with its next tick after now: ticks that came due while it was paused
	 * are not missed ticks and do not fire.
	 * @param name the schedule's name
	 * @return whether the schedule exists and was paused
	 */
	boolean resume(String name);

}
