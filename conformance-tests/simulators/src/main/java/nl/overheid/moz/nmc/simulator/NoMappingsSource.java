package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.standalone.MappingsSource;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.github.tomakehurst.wiremock.stubbing.StubMappings;
import java.util.List;
import java.util.UUID;

/**
 * Keeps WireMock from loading or saving stub files: the simulator's stubs come from code only, whatever
 * {@code mappings} directory happens to exist in the working directory.
 */
final class NoMappingsSource implements MappingsSource {

    @Override
    public void loadMappingsInto(StubMappings stubMappings) {
        // nothing to load
    }

    @Override
    public void save(List<StubMapping> stubMappings) {
        // never persisted
    }

    @Override
    public void save(StubMapping stubMapping) {
        // never persisted
    }

    @Override
    @SuppressWarnings("removal") // WireMock still declares it abstract
    public void remove(StubMapping stubMapping) {
        // never persisted
    }

    @Override
    public void remove(UUID stubMappingId) {
        // never persisted
    }

    @Override
    public void removeAll() {
        // never persisted
    }
}
