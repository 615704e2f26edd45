package dev.waybill.outbox.autoconfigure;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * A name Waybill binds, to suggest for a misspelt one.
 *
 * @param name the name
 * @param container whether it is a map or collection of plain values, whose keys are the user's
 * @since 0.1
 */
record KnownName(ConfigurationPropertyName name, boolean container) {
}
