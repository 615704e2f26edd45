package dev.waybill.retention;

import java.time.Duration;
import java.util.Objects;

/**
 * Whether the retention worker archives the published messages it purges, and how long the
 * archive keeps them. Archived messages are moved, in the purge's own batches and transactions,
 * into the archive table ({@code <outbox message table>_archive}), from which
 * the replay module ({@code waybill-replay}) can publish them again.
 *
 * @param enabled whether purged published messages are archived
 * @param keptFor how long an archived message is kept, from when it was archived; older ones are
 * deleted by the same worker, in its batches
 * @since 0.1
 */
public record RetentionArchive(boolean enabled, Duration keptFor) {

	/** No archive: purged messages are deleted. */
	public static final RetentionArchive OFF = new RetentionArchive(false, Duration.ofDays(90));

	/**
	 * Checks the components.
	 * @throws IllegalArgumentException when {@code keptFor} is not positive
	 */
	public RetentionArchive {
		Objects.requireNonNull(keptFor, "keptFor must not be null");
		if (keptFor.isNegative() || keptFor.isZero()) {
			throw new IllegalArgumentException("keptFor must be a positive duration, was " + keptFor);
		}
	}

}
