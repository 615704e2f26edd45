package dev.waybill.schedules.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.waybill.schedules.ScheduleStatus;

/**
 * Reads and writes the schedule table's columns: {@code timestamptz} as {@link Instant}, a row as
 * {@link ScheduleStatus}.
 *
 * @since 0.1
 */
final class ScheduleRows {

	private ScheduleRows() {
	}

	static ScheduleStatus status(ResultSet rs, int row) throws SQLException {
		return new ScheduleStatus(rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4), instant(rs, 5),
				nullableInstant(rs, 6), nullableInstant(rs, 7), rs.getLong(8), rs.getLong(9), rs.getString(10));
	}

	static Instant instant(ResultSet rs, int column) throws SQLException {
		return Objects.requireNonNull(nullableInstant(rs, column));
	}

	static @Nullable Instant nullableInstant(ResultSet rs, int column) throws SQLException {
		OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	static @Nullable Timestamp timestamp(@Nullable Instant instant) {
		return (instant != null) ? Timestamp.from(instant) : null;
	}

}
