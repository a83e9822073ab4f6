#include "source_spec.hpp"

#include "camera_source.hpp"
#include "demo_clip.hpp"

namespace nertz::gui {

QString SourceSpec::toString() const {
    switch (kind) {
        case Kind::Demo: return "demo";
        case Kind::Video: return "video:" + arg;
        case Kind::Folder: return "folder:" + arg;
        case Kind::Camera: return "camera:" + arg;
    }
    return "demo";
}

std::optional<SourceSpec> parseSourceSpec(const QString& text, QString* error) {
    SourceSpec s;
    if (text == "demo") return s;
    const int colon = text.indexOf(':');
    const QString kind = text.left(colon), arg = text.mid(colon + 1);
    if (colon > 0 && !arg.isEmpty()) {
        s.arg = arg;
        if (kind == "video") { s.kind = SourceSpec::Kind::Video; return s; }
        if (kind == "folder") { s.kind = SourceSpec::Kind::Folder; return s; }
        if (kind == "camera") { s.kind = SourceSpec::Kind::Camera; return s; }
    }
    if (error) *error = QString("--source: \"%1\" is not demo, video:PATH, folder:PATH or camera:ID").arg(text);
    return std::nullopt;
}

std::unique_ptr<FrameSource> makeSource(const SourceSpec& spec, QString* error, QObject* parent) {
    switch (spec.kind) {
        case SourceSpec::Kind::Video: return std::make_unique<VideoFileSource>(spec.arg, true, parent);
        case SourceSpec::Kind::Folder: return std::make_unique<ImageFolderSource>(spec.arg, 500, true, parent);
        case SourceSpec::Kind::Camera: {
            auto device = CameraSource::find(spec.arg);
            if (!device) {
                if (error) *error = QString("No camera \"%1\" (cameras found: %2).").arg(spec.arg).arg(CameraSource::cameras().size());
                return nullptr;
            }
            return std::make_unique<CameraSource>(*device, spec.resolution, parent);
        }
        case SourceSpec::Kind::Demo: {
            QString clipError;
            const QString clip = ensureDemoClip(&clipError);
            if (clip.isEmpty()) {
                if (error) *error = clipError;
                return nullptr;
            }
            return std::make_unique<VideoFileSource>(clip, true, parent);
        }
    }
    return nullptr;
}

}  // namespace nertz::gui
