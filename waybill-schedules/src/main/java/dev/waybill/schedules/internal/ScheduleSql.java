package dev.waybill.schedules.internal;

import dev.waybill.kernel.AuxiliaryTables;

/**
 * The scheduler's SQL. Times are the database's ({@code clock_timestamp()}), so instances with
 * skewed clocks agree on what is due.
 */
final class ScheduleSql {

	private static final String COLUMNS = "name, cron, zone, paused, next_fire_at, last_fired_at, last_tick_at, "
			+ "fired_ticks, failed_ticks, last_error";

	/** Creates the row, or updates the expression; a changed expression or zone restarts from now. */
	final String register;

	/** Locks one due, unpaused schedule of this instance's, skipping rows another instance holds. */
	final String claim;

	/** Moves the claimed row on; guarded by the fire time it was claimed at. */
	final String fired;

	final String failed;

	final String nextDue;

	final String list;

	final String find;

	final String pause;

	final String resume;

	final String now = "SELECT clock_timestamp()";

	ScheduleSql(AuxiliaryTables tables) {
		String table = tables.qualifiedSchedule();
		this.register = """
				INSERT INTO %1$s AS s (name, cron, zone, next_fire_at) VALUES (?, ?, ?, coalesce(?::timestamptz, 'infinity'::timestamptz))
				ON CONFLICT (name) DO UPDATE SET cron = excluded.cron, zone = excluded.zone,
				  next_fire_at = excluded.next_fire_at, updated_at = clock_timestamp()
				WHERE s.cron <> excluded.cron OR s.zone <> excluded.zone""".formatted(table);
		this.claim = """
				SELECT name, next_fire_at, clock_timestamp() FROM %1$s
				WHERE name = ANY(?) AND NOT paused AND next_fire_at <= clock_timestamp()
				ORDER BY next_fire_at
				LIMIT 1
				FOR UPDATE SKIP LOCKED""".formatted(table);
		this.fired = """
				UPDATE %1$s SET next_fire_at = coalesce(?::timestamptz, 'infinity'::timestamptz), last_fired_at = ?,
				  last_tick_at = coalesce(?::timestamptz, last_tick_at), fired_ticks = fired_ticks + ?, updated_at = clock_timestamp()
				WHERE name = ? AND next_fire_at = ?""".formatted(table);
		this.failed = """
				UPDATE %1$s SET next_fire_at = coalesce(?::timestamptz, 'infinity'::timestamptz), failed_ticks = failed_ticks + ?, last_error = ?,
				  updated_at = clock_timestamp()
				WHERE name = ? AND next_fire_at = ?""".formatted(table);
		this.nextDue = """
				SELECT extract(epoch FROM (min(next_fire_at) - clock_timestamp())) * 1000 FROM %1$s
				WHERE name = ANY(?) AND NOT paused""".formatted(table);
		this.list = "SELECT " + COLUMNS + " FROM " + table + " ORDER BY name";
		this.find = "SELECT " + COLUMNS + " FROM " + table + " WHERE name = ?";
		this.pause = "UPDATE " + table + " SET paused = true, updated_at = clock_timestamp() WHERE name = ?";
		this.resume = "UPDATE " + table
				+ " SET paused = false, next_fire_at = coalesce(?::timestamptz, 'infinity'::timestamptz), updated_at = clock_timestamp()"
				+ " WHERE name = ? AND paused";
	}

}
