package dev.waybill.schedules;

/**
 * What a schedule does with ticks it missed: ticks that came due while no instance ran (or while
 * every instance was busy) and that are later than the schedule's misfire threshold when an
 * instance gets to them. Ticks within the threshold are never "missed": they fire, late.
 *
 * @since 0.1
 */
public enum MissedTickPolicy {

	/** The missed ticks fire once, together, as one tick (the first missed one, marked late). The default. */
	FIRE_ONCE,

	/**
	 * Each missed tick fires, oldest first, up to the schedule's {@code maxMissedTicks}; older ones
	 * beyond the limit are skipped.
	 */
	FIRE_EACH,

	/** Missed ticks are skipped; the schedule goes on with its next tick. */
	SKIP

}
